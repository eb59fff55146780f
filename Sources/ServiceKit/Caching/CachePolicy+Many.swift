import Foundation
import RnmAPI

extension CachePolicy {
    /// A read of many values at once by the rule, decided for the batch: the fresh stored ones
    /// answer; the rest are asked in one fetch, unless every one of them may still be given at once
    /// (``revalidates(_:now:)``: one refresh runs behind); when the upstream fails, what is stored
    /// answers, stale, and what is not is "unchecked". Counted once, as one answer.
    /// - Parameters:
    ///   - keys: what is asked for, in order.
    ///   - stored: what the cache holds of them (read by the caller).
    ///   - fetchedAt: when a stored value was fetched from the upstream.
    ///   - absent: those of `keys` known not to exist without asking (never fetched, never
    ///     unchecked).
    ///   - fetch: asks the upstream for some keys in one call and stores its answer (through
    ///     ``fetchOnce(_:_:force:stored:fetch:)`` and ``upstream(forced:_:)``, which refuses at
    ///     once while the upstream is failing).
    ///   - missing: when the upstream failed, those of the keys asked for and not stored that are
    ///     known not to exist all the same (the best knowledge there is).
    ///   - otherwise: when the upstream failed and nothing asked for is stored or known absent:
    ///     the error, given the upstream's and the keys that were asked for.
    public func readMany<Key: Hashable & Sendable, Value: Sendable>(
        _ keys: [Key], stored: [Key: Value], fetchedAt: (Value) -> Date, absent: Set<Key>,
        fetch: @escaping @Sendable ([Key]) async throws -> Answer<[Key: Value]>,
        missing: ([Key]) async throws -> Set<Key>,
        otherwise: (UpstreamError, [Key]) async throws -> Never
    ) async throws -> BatchAnswer<Key, Value> {
        /// The answer before it is counted.
        func decide() async throws -> BatchAnswer<Key, Value> {
            var found = stored
            let needed = keys.filter { !absent.contains($0) && (found[$0].map { !isFresh(fetchedAt($0)) } ?? true) }
            let oldest = found.values.map(fetchedAt).min() ?? Date()
            guard !needed.isEmpty else { return BatchAnswer(found, .cached(at: oldest)) }
            if needed.allSatisfy({ found[$0].map { revalidates(fetchedAt($0)) } ?? false }) {
                // All within the stale-while-revalidate window: at once, one refresh behind.
                Task { _ = try? await fetch(needed) }
                return BatchAnswer(found, .revalidating(at: oldest))
            }
            do {
                let fetched = try await fetch(needed)
                found.merge(fetched.value) { $1 }
                return BatchAnswer(found, fetched.freshness)
            } catch let error as UpstreamError {
                let knownAbsent = try await missing(needed.filter { found[$0] == nil })
                guard !found.isEmpty || keys.isEmpty || knownAbsent.count == needed.count else {
                    try await otherwise(error, needed)
                }
                let unchecked = Set(needed.filter { found[$0] == nil && !knownAbsent.contains($0) })
                return BatchAnswer(found, .stale(at: oldest, because: error), unchecked: unchecked)
            }
        }
        let answer = try await decide()
        metrics.answered(answer.freshness)
        return answer
    }
}
