import Foundation
import RnmAPI

extension CachePolicy {
    /// Asks the upstream, conditionally when a copy is stored (an unchanged answer costs a `304`,
    /// no body), and answers what it brought, fetched now: on a `304` the stored copy, renewed
    /// (it is the upstream's, now); otherwise the new answer, as `store` kept it. Run as the
    /// `fetch` of ``fetchOnce(_:_:force:stored:fetch:)``.
    /// - Parameters:
    ///   - forced: a refresh or a sync: asked even while the upstream is failing
    ///     (``upstream(forced:_:)``).
    ///   - validator: what identifies the stored copy to the upstream; nil to ask for a whole answer.
    ///   - ask: the upstream call, with that validator.
    ///   - renewing: the stored copy, in words (for a failed write's report).
    ///   - renew: records in the database that the stored copy is current at the date given.
    ///   - stored: the stored copy, as it is answered when renewed at the date given.
    ///   - store: stores a new answer (with its validator, fetched at the date given) and makes
    ///     the value answered.
    public func fetchConditionally<Fetched: Sendable, Value: Sendable>(
        forced: Bool = false, validator: () async throws -> Validator?,
        ask: (Validator?) async throws(UpstreamError) -> Revalidated<Fetched>,
        renewing: @autoclosure () -> String, renew: (Date) async throws -> Void,
        stored: (Date) async throws -> Value?,
        store: (Fetched, Validator?, Date) async throws -> Value
    ) async throws -> Answer<Value> {
        let validator = try await validator()
        // A copy is as old as its request (stored only over an older one).
        let now = Date()
        let answer = try await upstream(forced: forced) { () async throws(UpstreamError) in
            try await ask(validator)
        }
        guard case .modified(let fetched, let received) = answer else {
            // Only asked conditionally with a stored copy: that copy is the upstream's, now.
            guard let renewed = try await stored(now) else {
                throw UpstreamError.status(304)  // not what was asked: the next fetch is a whole one
            }
            try await storage.bestEffort("the age of \(renewing())") { try await renew(now) }
            return Answer(renewed, .fetched(at: now))
        }
        return Answer(try await store(fetched, received, now), .fetched(at: now))
    }
}
