import NIOCore
import NIOPosix

/// Swift Concurrency's tasks run on NIO's event loop threads instead of a pool of their own.
/// Every request crosses between the two (a frame read on an event loop, served by a task, its
/// reply written on an event loop); on one set of threads a crossing is a queue push instead of
/// a wake-up of another thread, which was the largest single cost in the profiles
/// (BENCHMARKS.md). Nothing in a server blocks a thread in a task: SQLite runs on GRDB's queues and
/// URLSession on its own.
public enum EventLoopExecutor {
    /// Call first thing in `main`, on the main thread, once; false if it could not be done.
    /// The event loops are `RNM_EVENT_LOOPS` if set, else `defaultThreads`, else one per core.
    @discardableResult
    public static func install(defaultThreads: Int? = nil) -> Bool {
        // Out of the table's range: its nearest end (a process cannot report a setting's error
        // before its executor is installed).
        let range = Setting.eventLoops.spec.range ?? 1...Int.max
        let set = Setting.eventLoops.value().flatMap(Int.init).map { min(max($0, range.lowerBound), range.upperBound) }
        if let threads = set ?? defaultThreads {
            NIOSingletons.groupLoopCountSuggestion = threads
        }
        return NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }

    /// The Gateway's default: one event loop. It only moves bytes; on one thread, a request's
    /// every step (read, forward, reply, write) stays on it, and the other cores are left to
    /// the services (measured in BENCHMARKS.md: +40% requests/s on two cores).
    public static let gatewayThreads = 1
}
