import Foundation
import GRDB
import Messaging
import NIOCore
import RnmAPI

/// Calls its action after every transaction that changed a service's database (a fetch
/// stored, a sync, an eviction; in the favorites' file, a favorite): what empties the reply
/// cache (a kept reply never outlives its data) and, for the cache's database, moves the
/// data's version (``DataChanges``). Updates of bookkeeping columns alone
/// (``bookkeepingColumns``: a `304` renewing a copy's age, a read marking a page used) change no
/// answer, and call nothing.
public final class DataChangeObserver: TransactionObserver, @unchecked Sendable {
    private let action: @Sendable () -> Void
    /// Set when the transaction changed a row. Only touched on the database's writer queue,
    /// where GRDB calls every method of an observer.
    private var changed = false

    public init(_ action: @escaping @Sendable () -> Void) {
        self.action = action
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
        action()
    }

    public func databaseDidRollback(_ db: Database) {
        changed = false
    }
}

extension DatabasePool {
    /// Empties `cache` after every transaction that changes this database.
    public func invalidateOnCommit(_ cache: ExpiringCache<ByteBuffer>) {
        add(transactionObserver: DataChangeObserver { cache.removeAll() }, extent: .databaseLifetime)
    }

    /// After every transaction that changes this database, empties `cache` (when there is
    /// one), then counts the change in `changes`: in that order, in one observer, so that a
    /// reply kept before the change is gone before the new version can be read (a client
    /// keeping it under the new version would repeat old data up to the max age).
    public func invalidateOnCommit(_ cache: ExpiringCache<ByteBuffer>?, counting changes: DataChanges) {
        let observer = DataChangeObserver {
            cache?.removeAll()
            changes.record()
        }
        add(transactionObserver: observer, extent: .databaseLifetime)
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
