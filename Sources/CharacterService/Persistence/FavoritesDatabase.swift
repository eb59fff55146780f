import ArgumentParser
import Foundation
import GRDB
import ServiceKit

/// The favorites: user data, in a small file of their own beside the cache, so that losing or
/// rebuilding the cache (a damaged file set aside, a deleted volume of cache) never loses them.
struct FavoritesDatabase: CacheDatabase {
    let pool: DatabasePool

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        // Its own name, never the cache's "v1" (``checkedPath(_:cachePath:)`` keeps the two
        // files apart).
        migrator.registerMigration("favorites-v1") { db in
            try db.create(table: "favorite", options: .ifNotExists) { t in
                t.primaryKey("id", .integer)
                t.column("addedAt", .double).notNull()
            }
        }
        return migrator
    }

    /// The default file: `favorites.sqlite` in the cache's folder.
    static func path(besideCache cachePath: String) -> String {
        URL(fileURLWithPath: cachePath).deletingLastPathComponent().appendingPathComponent("favorites.sqlite").path
    }

    /// The favorites path, checked: never the cache itself (adopting would empty it).
    static func checkedPath(_ path: String, cachePath: String) throws -> String {
        let resolve = { (path: String) in URL(fileURLWithPath: path).resolvingSymlinksInPath().standardized.path }
        guard resolve(path) != resolve(cachePath) else {
            throw ValidationError("RNM_FAVORITES_DB must not be the cache file itself (\(cachePath))")
        }
        return path
    }

    /// Favorites that versions before this one kept in the cache file move here, once: copied
    /// (kept if already here), then removed from the cache.
    func adopt(from cache: CharacterDatabase) throws {
        let old = try cache.pool.read { db in try Row.fetchAll(db, sql: "SELECT id, addedAt FROM favorite") }
        guard !old.isEmpty else { return }
        try insert(old)
        try cache.pool.write { db in try db.execute(sql: "DELETE FROM favorite") }
    }

    /// Favorites an older version kept in a cache file that was then found damaged and set
    /// aside: what can still be read of them is copied (the file is left as it is).
    func adopt(fromSetAside path: String) throws {
        let queue = try DatabaseQueue(
            path: path,
            configuration: {
                var c = Configuration(); c.readonly = true; return c
            }())
        let old = try queue.read { db in try Row.fetchAll(db, sql: "SELECT id, addedAt FROM favorite") }
        try insert(old)
    }

    private func insert(_ old: [Row]) throws {
        guard !old.isEmpty else { return }
        try pool.write { db in
            for row in old {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO favorite (id, addedAt) VALUES (?, ?)",
                    arguments: [row["id"] as Int, row["addedAt"] as Double])
            }
        }
    }

    func setFavorite(id: Int, _ favorite: Bool, at date: Date) async throws {
        try await pool.write { db in
            if favorite {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO favorite (id, addedAt) VALUES (?, ?)",
                    arguments: [id, date.timeIntervalSince1970])
            } else {
                try db.execute(sql: "DELETE FROM favorite WHERE id = ?", arguments: [id])
            }
        }
    }

    /// Favorite ids, oldest first.
    func ids() async throws -> [Int] {
        try await pool.read { db in try Int.fetchAll(db, sql: "SELECT id FROM favorite ORDER BY addedAt, id") }
    }
}
