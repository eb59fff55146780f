import CoreMetrics
import RnmAPI
import Telemetry

/// How the cache rule answered (every read decided by ``CachePolicy``, a read of many values at once
/// counted as one answer): `rnm_cache_answers_total` by source, and the fetches joined instead of
/// started.
public struct CacheMetrics: Sendable {
    private let database, fetched, revalidated, stale: Counter
    private let joins: Counter

    public init(instruments: Instruments = .disabled) {
        database = RnmMetrics.cacheAnswers.counter("database", in: instruments)
        fetched = RnmMetrics.cacheAnswers.counter("fetched", in: instruments)
        revalidated = RnmMetrics.cacheAnswers.counter("revalidated", in: instruments)
        stale = RnmMetrics.cacheAnswers.counter("stale", in: instruments)
        joins = RnmMetrics.singleFlightJoins.counter(in: instruments)
    }

    /// An answer, counted by what its freshness says of it (by ``CachePolicy`` only: a read is
    /// counted where it is decided).
    func answered(_ freshness: Freshness) {
        if freshness.stale {
            stale.increment()
        } else if freshness.revalidating == true {
            revalidated.increment()
        } else if freshness.source == .cache {
            database.increment()
        } else {
            fetched.increment()
        }
    }

    /// A read joined a fetch already in flight.
    func joined() { joins.increment() }
}
