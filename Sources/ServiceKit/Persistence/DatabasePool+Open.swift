import GRDB

extension DatabasePool {
    /// Opens (creating if needed) the SQLite database at `path` in WAL mode, waits up to 5 s
    /// on a lock instead of failing, and runs `migrator`.
    ///
    /// Memory: two readers (these machines have two cores, and fresh reads are mostly answered
    /// by the reply cache), and 1 MiB of page cache per connection instead of SQLite's 2 MiB:
    /// the files are a few megabytes and the kernel caches them anyway.
    public static func open(path: String, migrator: DatabaseMigrator) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.maximumReaderCount = 2
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA cache_size = -1024")
        }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try migrator.migrate(pool)
        return pool
    }
}
