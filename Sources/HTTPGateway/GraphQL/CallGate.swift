/// At most `limit` of one query's Gateway calls at once (`RNM_GRAPHQL_MAX_CALLS_IN_FLIGHT`): a
/// wide query waits for its own calls instead of taking the link's slots from other clients.
actor CallGate {
    private var available: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { available = max(1, limit) }

    /// Runs `work` once a slot is free.
    func run<T: Sendable>(_ work: @Sendable () async throws -> T) async throws -> T {
        if available > 0 {
            available -= 1
        } else {
            await withCheckedContinuation { waiting.append($0) }
        }
        defer { release() }
        return try await work()
    }

    private func release() {
        if waiting.isEmpty {
            available += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
