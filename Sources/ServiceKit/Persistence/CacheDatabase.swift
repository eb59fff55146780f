import GRDB
import Messaging
import NIOCore

/// A caching service's SQLite database: opened (created if needed) in WAL mode and migrated
/// by its versioned migrator, and the reply cache emptied by every commit that changes it.
/// Both services' databases are this, with their own schema and queries.
public protocol CacheDatabase: Sendable {
    /// The connections (one writer, readers in parallel).
    var pool: DatabasePool { get }
    /// The schema, one registered migration per version.
    static var migrator: DatabaseMigrator { get }
    /// Wraps an opened, migrated pool.
    init(pool: DatabasePool)
}

extension CacheDatabase {
    /// Opens (creating if needed) the database at `path` and migrates it.
    public init(path: String) throws {
        self.init(pool: try DatabasePool.open(path: path, migrator: Self.migrator))
    }

    /// Empties `cache` after every transaction that changes this database, so that no kept
    /// reply outlives its data.
    public func invalidateOnCommit(_ cache: ExpiringCache<ByteBuffer>) {
        pool.invalidateOnCommit(cache)
    }
}
