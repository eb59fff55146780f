import Foundation
import GRDB
import ServiceKit

/// The favorites: user data, in a small file of their own beside the cache, so that losing or
/// rebuilding the cache (a damaged file set aside, a deleted volume of cache) never loses them.
struct FavoritesDatabase: CacheDatabase {
    let pool: DatabasePool

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "favorite") { t in
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

    /// Favorites that versions before this one kept in the cache file move here, once: copied
    /// (kept if already here), then removed from the cache.
    func adopt(from cache: CharacterDatabase) throws {
        let old = try cache.pool.read { db in try Row.fetchAll(db, sql: "SELECT id, addedAt FROM favorite") }
        guard !old.isEmpty else { return }
        try pool.write { db in
            for row in old {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO favorite (id, addedAt) VALUES (?, ?)",
                    arguments: [row["id"] as Int, row["addedAt"] as Double])
            }
        }
        try cache.pool.write { db in try db.execute(sql: "DELETE FROM favorite") }
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
