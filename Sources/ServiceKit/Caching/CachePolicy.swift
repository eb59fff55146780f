import Foundation
import RnmAPI

/// The one cache rule of both caching services (docs/PROTOCOL.md §5): a stored answer younger
/// than the max age is served as it is; otherwise the upstream is asked (identical fetches in
/// flight made once); when the upstream fails, a fallback (the mirror) or the stored copy answers,
/// stale, with the reason; only with nothing stored is the failure the answer.
///
/// Each catalog describes its reads with this type (what is stored, how to fetch, what may stand
/// in) and never decides freshness by itself, nor counts an answer: a read of one value
/// (``read(stored:force:local:fetch:fallback:otherwise:)``), of many at once
/// (`CachePolicy+Many.swift`), a hit found by a read of more (``freshHit(_:)``), the fetch and its
/// `304` renewal (`CachePolicy+Conditional.swift`); so a change to the rule is made here once.
public struct CachePolicy: Sendable {
    /// Seconds a stored answer is served without asking the upstream (0: always ask first;
    /// `.infinity`: stored answers never expire, e.g. avatars).
    public let maxAge: Double
    /// What the service last saw of its upstream; every fetch made through the policy is recorded.
    public let health: UpstreamHealth
    /// Seconds past the max age during which a stored answer is still given at once while one
    /// refresh runs in the background (RFC 5861 stale-while-revalidate; 0: off). Only with a
    /// max age: a service that always asks first (0) keeps doing so.
    public let staleWhileRevalidate: Double
    /// What the service's writes found of its database; stores of fetched answers go through it.
    public let storage: StorageHealth
    /// How reads were answered, counted.
    public let metrics: CacheMetrics
    /// The upstream's requests: those refused here (failing, rate-limited) are counted.
    public let upstreamMetrics: UpstreamMetrics

    public init(
        maxAge: Double, staleWhileRevalidate: Double = 0, health: UpstreamHealth = UpstreamHealth(),
        storage: StorageHealth = StorageHealth(), metrics: CacheMetrics = CacheMetrics(),
        upstreamMetrics: UpstreamMetrics = UpstreamMetrics(upstream: "upstream")
    ) {
        self.metrics = metrics
        self.upstreamMetrics = upstreamMetrics
        self.maxAge = maxAge
        self.staleWhileRevalidate = staleWhileRevalidate
        self.health = health
        self.storage = storage
    }

    /// The same upstream, with stored answers that never expire (they cannot change upstream).
    public var forever: CachePolicy {
        CachePolicy(
            maxAge: .infinity, health: health, storage: storage, metrics: metrics, upstreamMetrics: upstreamMetrics)
    }

    /// True when data fetched at `date` may be served without asking the upstream.
    /// A copy dated after `now` (the clock was stepped back since) is not fresh: its age is
    /// unknown, and trusting it would keep it for as long as the clock jumped.
    public func isFresh(_ date: Date, now: Date = Date()) -> Bool {
        let age = now.timeIntervalSince(date)
        return maxAge > 0 && (age >= 0 || maxAge.isInfinite) && age < maxAge
    }

    /// True when data fetched at `date` is past its max age but may still be given at once while
    /// a refresh runs in the background: within the window, and the upstream not known to fail
    /// (then the answer must say so: stale, with the reason).
    public func revalidates(_ date: Date, now: Date = Date()) -> Bool {
        let age = now.timeIntervalSince(date)
        return maxAge > 0 && staleWhileRevalidate > 0 && age >= 0 && age < maxAge + staleWhileRevalidate
            && !health.snapshot.failing
    }

    /// A read by the rule.
    /// - Parameters:
    ///   - stored: what the cache holds (read by the caller, who may need it for more).
    ///   - force: ask the upstream even when the stored copy is fresh (a refresh).
    ///   - local: an answer made without the upstream when the stored copy is not fresh (a fresh
    ///     mirror); nil to ask the upstream. Not consulted when forced. It may throw (not found).
    ///   - fetch: asks the upstream and stores its answer (``fetchOnce(_:_:force:stored:fetch:)``);
    ///     run in the background when the stored copy ``revalidates(_:now:)``.
    ///   - fallback: when the upstream failed, an answer tried before the stored copy (the mirror).
    ///   - otherwise: when the upstream failed and nothing is stored: an answer, or the error.
    public func read<Value: Sendable>(
        stored: Stored<Value>?, force: Bool = false,
        local: () async throws -> Answer<Value>? = { nil },
        fetch: @escaping @Sendable () async throws -> Answer<Value>,
        fallback: (UpstreamError) async throws -> Answer<Value>? = { _ in nil },
        otherwise: (UpstreamError) async throws -> Answer<Value>
    ) async throws -> Answer<Value> {
        counted(
            try await answer(
                stored: stored, force: force, local: local, fetch: fetch, fallback: fallback, otherwise: otherwise))
    }

    /// A stored answer given as it is, from the cache, counted: for a read that does not refresh
    /// what it finds (a list's member once the list is stored), or the fast path of
    /// ``freshHit(_:)``.
    public func hit<Value: Sendable>(_ stored: Stored<Value>) -> Answer<Value> {
        counted(Answer(stored.value, .cached(at: stored.fetchedAt)))
    }

    /// The stored answer if it is fresh (``isFresh(_:now:)``), counted; nil otherwise, for a
    /// ``read(stored:force:local:fetch:fallback:otherwise:)``. The fast path of a read that
    /// found more than the stored copy in one database read and needs all of it.
    public func freshHit<Value: Sendable>(_ stored: Stored<Value>) -> Answer<Value>? {
        isFresh(stored.fetchedAt) ? hit(stored) : nil
    }

    /// An answer, counted by its freshness (`rnm_cache_answers_total`): every read's answer is
    /// counted here, once.
    public func counted<Value: Sendable>(_ answer: Answer<Value>) -> Answer<Value> {
        metrics.answered(answer.freshness)
        return answer
    }

    /// ``read(stored:force:local:fetch:fallback:otherwise:)`` before it is counted.
    private func answer<Value: Sendable>(
        stored: Stored<Value>?, force: Bool,
        local: () async throws -> Answer<Value>?,
        fetch: @escaping @Sendable () async throws -> Answer<Value>,
        fallback: (UpstreamError) async throws -> Answer<Value>?,
        otherwise: (UpstreamError) async throws -> Answer<Value>
    ) async throws -> Answer<Value> {
        if !force, let stored, isFresh(stored.fetchedAt) {
            return Answer(stored.value, .cached(at: stored.fetchedAt))
        }
        if !force, let stored, revalidates(stored.fetchedAt) {
            // One refresh for all such readers: the fetch is a single flight.
            Task { _ = try? await fetch() }
            return Answer(stored.value, .revalidating(at: stored.fetchedAt))
        }
        if !force, let answer = try await local() { return answer }
        let failure: UpstreamError
        // While the upstream is failing, straight to what stands in: no flight, no re-read.
        if let refusal = health.refusal(forced: force, takingProbe: false) {
            upstreamMetrics.refused()
            failure = refusal
        } else {
            do {
                return try await fetch()
            } catch let error as UpstreamError {
                failure = error
            }
        }
        if let answer = try await fallback(failure) { return answer }
        guard let stored else { return try await otherwise(failure) }
        return Answer(stored.value, .stale(at: stored.fetchedAt, because: failure))
    }

    /// Runs `fetch` (an upstream call, recorded in ``health``, and its storing) once for all
    /// identical callers in flight. Unless `force`, a new flight first calls `stored` and takes
    /// what it finds if fresh: an identical flight that had just ended stored it.
    public func fetchOnce<Key: Hashable & Sendable, Value: Sendable>(
        _ flights: SingleFlight<Key, Answer<Value>>, _ key: Key, force: Bool = false,
        stored: @escaping @Sendable () async throws -> Stored<Value>?,
        fetch: @escaping @Sendable () async throws -> Answer<Value>
    ) async throws -> Answer<Value> {
        try await flights.run(
            key, forced: force,
            reusing: { [self] in
                guard let found = try await stored(), isFresh(found.fetchedAt) else { return nil }
                return Answer(found.value, .cached(at: found.fetchedAt))
            }, onJoin: { [metrics] in metrics.joined() }, fetch)
    }

    /// Calls the upstream, recording the outcome in ``health``; refused at once while the upstream
    /// is failing (unless `forced`: a refresh or a sync tries) or rate-limited.
    public func upstream<T>(
        forced: Bool = false, _ call: () async throws(UpstreamError) -> T
    )
        async throws(UpstreamError) -> T
    {
        do {
            return try await health.recording(forced: forced, call)
        } catch {
            // Not sent: failing, or asked to wait (the fetcher counts what was sent).
            if case .failing = error { upstreamMetrics.refused() }
            if case .rateLimited = error { upstreamMetrics.refused() }
            throw error
        }
    }
}
