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
public actor SingleFlight<Key: Hashable & Sendable, Value: Sendable> {
    private struct Flight: Hashable {
        var key: Key
        var forced: Bool
    }

    private var inFlight: [Flight: Task<Value, any Error>] = [:]
    /// Callers of each run in flight, the first included (for tests that hold a run until
    /// its joiners are in).
    private var callers: [Flight: Int] = [:]

    public init() {}

    /// Runs `work` for `key` unless `stored` finds its result already stored (never when
    /// `forced`), or joins the run already in flight for it.
    public func run(
        _ key: Key, forced: Bool = false, reusing stored: @escaping @Sendable () async throws -> Value? = { nil },
        _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let flight = Flight(key: key, forced: forced)
        if let running = inFlight[flight] {
            callers[flight, default: 0] += 1
            return try await running.value
        }
        let task = Task {
            if !forced, let value = try await stored() { return value }
            return try await work()
        }
        inFlight[flight] = task
        callers[flight] = 1
        defer { (inFlight[flight], callers[flight]) = (nil, nil) }
        return try await task.value
    }

    /// How many callers wait on the unforced run in flight for `key` (0 when none is).
    public func runs(for key: Key) -> Int {
        callers[Flight(key: key, forced: false)] ?? 0
    }
}
