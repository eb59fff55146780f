import GRDB

extension DatabasePool {
    /// Opens (creating if needed) the SQLite database at `path` in WAL mode, waits up to 5 s
    /// on a lock instead of failing, and runs `migrator`.
    public static func open(path: String, migrator: DatabaseMigrator) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        let pool = try DatabasePool(path: path, configuration: configuration)
        try migrator.migrate(pool)
        return pool
    }
}
