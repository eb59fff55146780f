import Foundation
import GRDB
import Messaging
import NIOCore
import RnmAPI

/// Empties a service's reply cache whenever a transaction that changed its database commits
/// (a fetch stored, a sync, a favorite, an eviction): a kept reply never outlives its data.
/// Updates of bookkeeping columns alone (``bookkeepingColumns``: a `304` renewing a copy's
/// age, a read marking a page used) change no answer, and leave the cache as it is.
public final class ReplyCacheInvalidator: TransactionObserver, @unchecked Sendable {
    private let cache: ExpiringCache<ByteBuffer>
    /// Set when the transaction changed a row. Only touched on the database's writer queue,
    /// where GRDB calls every method of an observer.
    private var changed = false

    public init(cache: ExpiringCache<ByteBuffer>) {
        self.cache = cache
    }

    /// Columns that say when a copy was fetched or used, never what an answer holds.
    public static let bookkeepingColumns: Set<String> = ["fetchedAt", "usedAt"]

    public func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        if case .update(_, let columns) = eventKind { return !columns.isSubset(of: Self.bookkeepingColumns) }
        return true
    }

    public func databaseDidChange(with event: DatabaseEvent) {
        changed = true
        // One change is enough to know: no call per row for the rest of the transaction.
        stopObservingDatabaseChangesUntilNextTransaction()
    }

    public func databaseDidCommit(_ db: Database) {
        guard changed else { return }
        changed = false
        cache.removeAll()
    }

    public func databaseDidRollback(_ db: Database) {
        changed = false
    }
}

extension DatabasePool {
    /// Empties `cache` after every transaction that changes this database.
    public func invalidateOnCommit(_ cache: ExpiringCache<ByteBuffer>) {
        add(transactionObserver: ReplyCacheInvalidator(cache: cache), extent: .databaseLifetime)
    }
}

extension Freshness {
    /// Until when this answer may be given again as it is: an answer fresh from the cache,
    /// until its data is `maxAge` seconds old. Nil for anything else: just fetched (the next
    /// answer says `cache`), stale, or a service that always asks the upstream first.
    public func validUntil(maxAge: Double, now: Date = Date()) -> ContinuousClock.Instant? {
        guard source == .cache, !stale, maxAge > 0, let fetched = fetchedDate else { return nil }
        let remaining = fetched.timeIntervalSince(now) + maxAge
        guard remaining > 0.001 else { return nil }
        return .now + .milliseconds(Int64(remaining * 1000))
    }
}
