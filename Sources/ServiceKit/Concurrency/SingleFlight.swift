/// Makes identical work in flight at the same time run once: callers with the same key while
/// it runs share its result (or its error).
///
/// A caller reads its cache, misses, then asks for a run. If an identical run stored its
/// result between that read and that ask, a plain single flight would do the work again; so a
/// new run first calls `stored`, which reads the cache again, and does the work only when
/// that finds nothing usable. The re-read happens inside the flight, so it costs one read per
/// run, never one per caller, and nothing on the path of a cache hit.
///
/// A forced run (a refresh: the upstream's answer now) neither reads the cache again nor
/// joins, or is joined by, an unforced run of the same key, which may end up reusing the cache.
///
/// A run is cancelled once every caller has been (their requests were cancelled or passed
/// their deadline): nobody is left for its answer, and it would otherwise hold an upstream
/// connection for work that is thrown away. A caller arriving then starts a run of its own.
public actor SingleFlight<Key: Hashable & Sendable, Value: Sendable> {
    private struct Flight: Hashable {
        var key: Key
        var forced: Bool
    }

    private struct Running {
        var id: UInt64
        var task: Task<Value, any Error>
        /// Callers of the run not cancelled, the first included.
        var callers: Int
    }

    private var inFlight: [Flight: Running] = [:]
    private var nextID: UInt64 = 0

    public init() {}

    /// Runs `work` for `key` unless `stored` finds its result already stored (never when
    /// `forced`), or joins the run already in flight for it (then calls `onJoin`).
    public func run(
        _ key: Key, forced: Bool = false, reusing stored: @escaping @Sendable () async throws -> Value? = { nil },
        onJoin: (@Sendable () -> Void)? = nil, _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let flight = Flight(key: key, forced: forced)
        if var running = inFlight[flight], !running.task.isCancelled {
            onJoin?()
            running.callers += 1
            inFlight[flight] = running
            return try await wait(for: running, of: flight)
        }
        nextID += 1
        let task = Task {
            if !forced, let value = try await stored() { return value }
            return try await work()
        }
        let running = Running(id: nextID, task: task, callers: 1)
        inFlight[flight] = running
        defer { if inFlight[flight]?.id == running.id { inFlight[flight] = nil } }
        return try await wait(for: running, of: flight)
    }

    /// How many callers wait on the unforced run in flight for `key` (0 when none is).
    public func runs(for key: Key) -> Int {
        inFlight[Flight(key: key, forced: false)]?.callers ?? 0
    }

    private func wait(for running: Running, of flight: Flight) async throws -> Value {
        try await withTaskCancellationHandler {
            try await running.task.value
        } onCancel: {
            Task { await self.leave(flight, id: running.id) }
        }
    }

    /// A caller of run `id` was cancelled: the last one out cancels the run.
    private func leave(_ flight: Flight, id: UInt64) {
        guard var running = inFlight[flight], running.id == id else { return }
        running.callers -= 1
        inFlight[flight] = running
        if running.callers == 0 { running.task.cancel() }
    }
}
