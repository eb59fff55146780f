import Foundation
import GRDB
import RnmAPI

/// The cache's tables, as versioned migrations.
extension CharacterDatabase {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "character") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull()
                t.column("status", .text).notNull()
                t.column("related", .text).notNull()
                t.column("json", .blob).notNull()
                t.column("fetchedAt", .double).notNull()
            }
            try db.create(table: "location") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull()
                t.column("related", .text).notNull()
                t.column("json", .blob).notNull()
                t.column("fetchedAt", .double).notNull()
            }
            try db.create(table: "episode") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull()
                t.column("code", .text).notNull()
                t.column("airDate", .text).notNull()
                t.column("related", .text).notNull()
                t.column("json", .blob).notNull()
                t.column("fetchedAt", .double).notNull()
            }
            try db.create(table: "listPage") { t in
                t.column("resource", .text).notNull()
                t.column("filterKey", .text).notNull()
                t.column("page", .integer).notNull()
                t.column("ids", .text).notNull()
                t.column("count", .integer).notNull()
                t.column("pages", .integer).notNull()
                t.column("fetchedAt", .double).notNull()
                t.primaryKey(["resource", "filterKey", "page"])
            }
            try db.create(table: "image") { t in
                t.primaryKey("id", .integer)
                t.column("contentType", .text).notNull()
                t.column("bytes", .blob).notNull()
                t.column("fetchedAt", .double).notNull()
            }
            // Favorites live in their own file now (FavoritesDatabase); this table stays for
            // older files, whose favorites move there at start.
            try db.create(table: "favorite") { t in
                t.primaryKey("id", .integer)
                t.column("addedAt", .double).notNull()
            }
        }
        migrator.registerMigration("v2-structured-filter-keys") { db in
            // Filters were keyed as joined text, where `{"name":"rick&status=dead"}` and
            // `{"name":"rick","status":"dead"}` collided; keys are now canonical JSON. And
            // pages of filtered lists are evicted least recently used first.
            try db.alter(table: "listPage") { t in
                t.add(column: "usedAt", .double).notNull().defaults(to: 0)
            }
            try db.execute(sql: "UPDATE listPage SET usedAt = fetchedAt")
            // Old filtered pages may hold a colliding answer under the new key: they are only a
            // cache, so they go (unfiltered pages, the mirror, keep their key "" and stay).
            try db.execute(sql: "DELETE FROM listPage WHERE filterKey != ''")
            try db.create(index: "listPage_by_use", on: "listPage", columns: ["usedAt"])
        }
        registerMirrorMigration(in: &migrator)
        registerValidatorMigration(in: &migrator)
        return migrator
    }
}
