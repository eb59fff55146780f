import Foundation
import GRDB
import Messaging
import NIOCore
import ServiceKit

/// A country's cached list.
struct CachedCountry: Sendable {
    /// The country's name as the data spells it.
    var country: String
    var fetchedAt: Date
    /// Names and encoded records, in the upstream's order.
    var items: [(name: String, json: Data)]
}

/// The UniversityService's SQLite cache (GRDB, WAL): one list per country, replaced whole.
struct UniversityDatabase: CacheDatabase {
    let pool: DatabasePool

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "country") { table in
                table.primaryKey("key", .text)
                table.column("name", .text).notNull()
                table.column("fetchedAt", .double).notNull()
                table.column("count", .integer).notNull()
            }
            try db.create(table: "university") { table in
                table.column("countryKey", .text).notNull().references("country", onDelete: .cascade)
                table.column("position", .integer).notNull()
                table.column("name", .text).notNull()
                table.column("nameKey", .text).notNull()
                table.column("json", .blob).notNull()
                table.primaryKey(["countryKey", "position"])
            }
            try db.create(
                index: "university_by_name", on: "university", columns: ["countryKey", "nameKey", "position"])
        }
        migrator.registerMigration("v2-world-mirror") { db in
            // What the last complete `universities.sync` stored: every country, from one request.
            try db.create(table: "worldMirror") { table in
                table.primaryKey("id", .integer).check { $0 == 1 }
                table.column("completedAt", .double).notNull()
                table.column("countries", .integer).notNull()
                table.column("universities", .integer).notNull()
            }
        }
        migrator.registerMigration("v3-validators") { db in
            // Each country's list keeps the upstream's validator, asked with next time.
            try Validator.addColumns(to: ["country"], in: db)
        }
        return migrator
    }

    /// Stores the whole world list, country by country, and marks the mirror complete: all in
    /// one transaction, so an interrupted sync leaves the previous mirror as it was.
    func replaceWorld(
        _ countries: [(key: String, country: String, items: [(name: String, json: Data)])], fetchedAt: Date
    ) async throws {
        try await pool.write { db in
            for entry in countries {
                try Self.replace(
                    key: entry.key, country: entry.country, items: entry.items, fetchedAt: fetchedAt, in: db)
            }
            try db.execute(
                sql:
                    "INSERT OR REPLACE INTO worldMirror (id, completedAt, countries, universities) VALUES (1, ?, ?, ?)",
                arguments: [
                    fetchedAt.timeIntervalSince1970, countries.count, countries.reduce(0) { $0 + $1.items.count },
                ])
        }
    }

    /// The last complete world mirror, if any.
    func worldMirror() async throws -> (completedAt: Date, countries: Int, universities: Int)? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT completedAt, countries, universities FROM worldMirror WHERE id = 1").map {
                (Date(timeIntervalSince1970: $0["completedAt"]), $0["countries"], $0["universities"])
            }
        }
    }

    /// Universities of every cached country whose name contains `name` (any letter case), by
    /// country then in the upstream's order.
    /// At most `limit` of them, and how many there are in all.
    func search(name: String, limit: Int) async throws -> (items: [(name: String, json: Data)], total: Int) {
        // SQLite reads a bound text up to its first NUL: a name holding one would match as its
        // part before it. No university's name holds one.
        if name.utf8.contains(0) { return ([], 0) }
        return try await pool.read { db in
            let key = name.lowercased()
            let total =
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM university WHERE instr(nameKey, ?) > 0", arguments: [key]) ?? 0
            let items = try Row.fetchAll(
                db,
                sql:
                    """
                    SELECT name, json FROM university WHERE instr(nameKey, ?) > 0 ORDER BY countryKey, position \
                    LIMIT ?
                    """,
                arguments: [key, limit]
            )
            .map { (name: $0["name"] as String, json: $0["json"] as Data) }
            return (items, total)
        }
    }

    /// Replaces a country's list in one transaction.
    func replace(
        key: String, country: String, items: [(name: String, json: Data)], fetchedAt: Date,
        validator: Validator? = nil
    ) async throws {
        try await pool.write { db in
            try Self.replace(
                key: key, country: country, items: items, fetchedAt: fetchedAt, validator: validator, in: db)
        }
    }

    /// The validator of a country's stored list.
    func validator(key: String) async throws -> Validator? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT etag, lastModified FROM country WHERE key = ?", arguments: [key])
                .flatMap { Validator(row: $0, at: 0) }
        }
    }

    /// A `304` for a country's list: the stored copy is the upstream's as of `date`.
    func renew(key: String, at date: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE country SET fetchedAt = ? WHERE key = ? AND "
                    + CopyOrder.replaces("?", storedIn: "country"),
                arguments: [date.timeIntervalSince1970, key, date.timeIntervalSince1970])
        }
    }

    private static func replace(
        key: String, country: String, items: [(name: String, json: Data)], fetchedAt: Date,
        validator: Validator? = nil, in db: Database
    ) throws {
        // An answer to a request that left before the stored copy's never replaces it.
        let stored = try Double.fetchOne(db, sql: "SELECT fetchedAt FROM country WHERE key = ?", arguments: [key])
        guard CopyOrder.replaces(fetchedAt, stored: stored.map(Date.init(timeIntervalSince1970:))) else { return }
        try db.execute(sql: "DELETE FROM university WHERE countryKey = ?", arguments: [key])
        try db.execute(
            sql:
                """
                INSERT OR REPLACE INTO country (key, name, fetchedAt, count, etag, lastModified) VALUES (?, ?, ?, \
                ?, ?, ?)
                """,
            arguments: StatementArguments(
                [key, country, fetchedAt.timeIntervalSince1970, items.count]
                    + Validator.values(validator)))
        let statement = try db.cachedStatement(
            sql: "INSERT INTO university (countryKey, position, name, nameKey, json) VALUES (?, ?, ?, ?, ?)")
        for (position, item) in items.enumerated() {
            try statement.execute(arguments: [key, position, item.name, item.name.lowercased(), item.json])
        }
    }

    /// A country's cached list, if it was ever fetched.
    func country(key: String) async throws -> CachedCountry? {
        try await pool.read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT name, fetchedAt FROM country WHERE key = ?", arguments: [key])
            else {
                return nil
            }
            let items = try Row.fetchAll(
                db, sql: "SELECT name, json FROM university WHERE countryKey = ? ORDER BY position", arguments: [key]
            )
            .map { (name: $0["name"] as String, json: $0["json"] as Data) }
            return CachedCountry(
                country: row["name"], fetchedAt: Date(timeIntervalSince1970: row["fetchedAt"]), items: items)
        }
    }

    /// The first university (in upstream order) whose name matches `name` case-insensitively,
    /// with the country's fetch time; nil when the country was never fetched.
    func find(key: String, name: String) async throws -> (fetchedAt: Date, json: Data?)? {
        try await pool.read { db in
            guard
                let fetchedAt = try Double.fetchOne(
                    db, sql: "SELECT fetchedAt FROM country WHERE key = ?", arguments: [key])
            else {
                return nil
            }
            let json = try Data.fetchOne(
                db, sql: "SELECT json FROM university WHERE countryKey = ? AND nameKey = ? ORDER BY position LIMIT 1",
                arguments: [key, name.lowercased()])
            return (Date(timeIntervalSince1970: fetchedAt), json)
        }
    }

    /// The name of a cached country that has a university named `name` (any letter case).
    func countryHolding(name: String) async throws -> String? {
        try await pool.read { db in
            try String.fetchOne(
                db,
                sql:
                    """
                    SELECT country.name FROM university JOIN country ON country.key = university.countryKey WHERE \
                    university.nameKey = ? ORDER BY university.position LIMIT 1
                    """,
                arguments: [name.lowercased()])
        }
    }

    /// Rows per table, for health.
    func counts() async throws -> [String: Int] {
        try await pool.read { db in
            [
                "countries": try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM country") ?? 0,
                "universities": try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM university") ?? 0,
            ]
        }
    }
}
