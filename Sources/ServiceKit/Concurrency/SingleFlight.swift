/// Makes identical work in flight at the same time run once: callers with the same key while
/// it runs share its result (or its error).
public actor SingleFlight<Key: Hashable & Sendable, Value: Sendable> {
    private var inFlight: [Key: Task<Value, any Error>] = [:]

    public init() {}

    /// Runs `work` for `key`, or joins the run already in flight for it.
    public func run(_ key: Key, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        if let running = inFlight[key] {
            return try await running.value
        }
        let task = Task { try await work() }
        inFlight[key] = task
        defer { inFlight[key] = nil }
        return try await task.value
    }
}
