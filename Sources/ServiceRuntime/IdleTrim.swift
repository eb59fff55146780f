import CoreMetrics
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Gives memory that work left behind back to the system once the work is over.
///
/// glibc keeps what it freed in its arenas: after 3,000 HTTP connections at once had closed,
/// the HTTP front stayed at 150 MB against 41 MB before (debug build), and after the bench's
/// runs (deep GraphQL answers among them) at 100 MB; reused by the next burst, never
/// returned. `malloc_trim` returns it, but it holds the allocator's locks while it walks the
/// arenas: called after each large answer it made every thread's allocations wait
/// (BENCHMARKS.md). Here it runs only when the process has gone quiet after some work: no new
/// connection and no request for `quietPeriod`, none being served, and, after a burst of
/// `minimumConnections` or more open at once, fewer than a quarter of them still open (their
/// memory is freed as they close).
public final class IdleTrim: Service, Sendable {
    private let quietPeriod: Duration
    private let minimumConnections: Int
    /// Requests started so far (a count that only grows) and whether any is being served now.
    private let requests: @Sendable () -> (started: Int, inFlight: Bool)
    private let counts = Mutex(Counts())
    /// Counts the trims (`rnm_memory_trims_total`): what a test or an operator waits on.
    private let trims: Counter?

    private struct Counts {
        var open = 0
        var peak = 0
        var openedSinceCheck = 0
        var requestsAtCheck = 0
        /// Work since the last trim (a connection or a request).
        var worked = false
    }

    public init(
        quietPeriod: Duration = .seconds(2), minimumConnections: Int = 100, trims: Counter? = nil,
        requests: @escaping @Sendable () -> (started: Int, inFlight: Bool)
    ) {
        self.trims = trims
        self.quietPeriod = quietPeriod
        self.minimumConnections = minimumConnections
        self.requests = requests
    }

    /// A connection was accepted (activity: no trim until it has been quiet again).
    public func connectionOpened() {
        counts.withLock {
            $0.open += 1
            $0.peak = max($0.peak, $0.open)
            $0.openedSinceCheck += 1
        }
    }

    /// A connection counted by ``connectionOpened()`` has closed.
    public func connectionClosed() {
        counts.withLock { $0.open -= 1 }
    }

    public func run() async throws {
        // Checks every `quietPeriod`; the sleep is cancelled at graceful shutdown, which ends it.
        try? await cancelWhenGracefulShutdown { [self] in
            while true {
                try await Task.sleep(for: quietPeriod)
                check()
            }
        }
    }

    /// Trims if the process has gone quiet after some work.
    private func check() {
        let now = requests()
        let due = counts.withLock { counts -> Bool in
            let quiet = counts.openedSinceCheck == 0 && now.started == counts.requestsAtCheck && !now.inFlight
            if !quiet { counts.worked = true }
            (counts.openedSinceCheck, counts.requestsAtCheck) = (0, now.started)
            let burstOver = counts.peak < minimumConnections || counts.open * 4 < counts.peak
            guard quiet, counts.worked, burstOver else { return false }
            (counts.peak, counts.worked) = (counts.open, false)
            return true
        }
        #if canImport(Glibc)
            // On a thread of its own: it holds the allocator's locks for milliseconds, which
            // must not be one of the few threads that run every task.
            if due, Self.trimOnAThreadOfItsOwn() { trims?.increment() }
        #endif
    }
}

#if canImport(Glibc)
    extension IdleTrim {
        /// `malloc_trim(0)` on a detached thread (pthreads: Foundation's `Thread` would bring
        /// Foundation into the processes that do without it).
        /// Whether the thread started (then the trim runs, at once).
        fileprivate static func trimOnAThreadOfItsOwn() -> Bool {
            var thread = pthread_t()
            let started = pthread_create(
                &thread, nil,
                { _ in
                    _ = glibcMallocTrim(0)
                    return nil
                }, nil)
            guard started == 0 else { return false }
            pthread_detach(thread)
            return true
        }
    }
#endif

#if canImport(Glibc)
    /// glibc's `malloc_trim(3)` (malloc.h is not part of the Glibc module).
    @_silgen_name("malloc_trim")
    private func glibcMallocTrim(_ pad: Int) -> Int32
#endif
