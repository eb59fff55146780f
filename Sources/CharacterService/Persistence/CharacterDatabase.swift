import Foundation
import GRDB
import Messaging
import NIOCore
import RnmAPI
import ServiceKit

/// The CharacterService's SQLite cache (GRDB, WAL, versioned migrations). Each upstream
/// answer is stored in one transaction; every value is a bound parameter.
struct CharacterDatabase: CacheDatabase {
    let pool: DatabasePool

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

    // MARK: Writes (one transaction per upstream answer)

    /// Stores a fetched list page and its records. Past `maxFilteredPages` pages of filtered
    /// lists, the least recently used are evicted; unfiltered pages (the mirror), records and
    /// favorites never are.
    func store(
        page: FetchedPage, resource: RecordKind, filterKey: String, number: Int, fetchedAt: Date,
        validator: Validator? = nil, maxFilteredPages: Int = .max
    ) async throws {
        try await pool.write { db in
            try Self.upsert(page.records, resource: resource, fetchedAt: fetchedAt, in: db)
            try db.execute(
                sql:
                    "INSERT OR REPLACE INTO listPage (resource, filterKey, page, ids, count, pages, fetchedAt, usedAt, etag, lastModified) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                arguments: StatementArguments(
                    [
                        resource.rawValue, filterKey, number, Self.list(page.records.map(\.id)),
                        page.count, page.pages, fetchedAt.timeIntervalSince1970,
                        fetchedAt.timeIntervalSince1970,
                    ] + Validator.values(validator)))
            guard !filterKey.isEmpty else { return }
            let filtered = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM listPage WHERE filterKey != ''") ?? 0
            if filtered > maxFilteredPages {
                try db.execute(
                    sql:
                        "DELETE FROM listPage WHERE rowid IN (SELECT rowid FROM listPage WHERE filterKey != '' ORDER BY usedAt LIMIT ?)",
                    arguments: [filtered - maxFilteredPages])
            }
        }
    }

    /// Marks a stored page as used now (so that it is not the next one evicted).
    func touch(resource: RecordKind, filterKey: String, number: Int, at date: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE listPage SET usedAt = ? WHERE resource = ? AND filterKey = ? AND page = ?",
                arguments: [date.timeIntervalSince1970, resource.rawValue, filterKey, number])
        }
    }

    /// Stores fetched records; `validator` is that of the request for the one record fetched.
    func store(
        records: [FetchedRecord], resource: RecordKind, fetchedAt: Date, validator: Validator? = nil
    ) async throws {
        guard !records.isEmpty else { return }
        try await pool.write { db in
            try Self.upsert(records, resource: resource, fetchedAt: fetchedAt, validator: validator, in: db)
        }
    }

    private static func upsert(
        _ records: [FetchedRecord], resource: RecordKind, fetchedAt: Date,
        validator: Validator? = nil, in db: Database
    ) throws {
        let time = fetchedAt.timeIntervalSince1970
        // The kind's own columns, then its filters' lowercased columns (the offline mirror's).
        let own: [(column: String, value: (FetchedRecord) -> any DatabaseValueConvertible)] =
            switch resource {
            case .character: [("status", { $0.columns["status"] ?? "" })]
            case .location: []
            case .episode: [("code", { $0.columns["code"] ?? "" }), ("airDate", { $0.columns["airDate"] ?? "" })]
            }
        let columns =
            ["id", "name"] + own.map(\.column) + ["related", "json", "fetchedAt"]
            + resource.filters.map(RecordKind.filterColumn) + Validator.columns
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        // A record stored again from another request (a page) keeps the validator of its own
        // request while its JSON is the same: that request would still answer the same bytes.
        let table = resource.table
        let updates = columns.dropFirst().map { column in
            Validator.columns.contains(column)
                ? column + " = CASE WHEN excluded." + column + " IS NULL AND " + table + ".json = excluded.json THEN "
                    + table + "." + column + " ELSE excluded." + column + " END"
                : column + " = excluded." + column
        }
        // Table and column names come from the code above; every value is a bound parameter.
        let insert =
            "INSERT INTO " + table + " (" + columns.joined(separator: ", ") + ") VALUES (" + placeholders
            + ") ON CONFLICT(id) DO UPDATE SET " + updates.joined(separator: ", ")
        let statement = try db.cachedStatement(sql: insert)
        for record in records {
            let values: [any DatabaseValueConvertible] =
                [record.id, record.columns["name"] ?? ""]
                + own.map { $0.value(record) } + [Self.list(record.related), record.json, time]
            // A validator belongs to one request: kept only for a record fetched on its own.
            let validator = records.count == 1 ? validator : nil
            try statement.execute(
                arguments: StatementArguments(values) + StatementArguments(Self.keys(record, resource: resource))
                    + StatementArguments(Validator.values(validator)))
        }
    }

    func storeImage(id: Int, contentType: String, bytes: Data, fetchedAt: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO image (id, contentType, bytes, fetchedAt) VALUES (?, ?, ?, ?)",
                arguments: [id, contentType, bytes, fetchedAt.timeIntervalSince1970])
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

    // MARK: Reads

    func page(resource: RecordKind, filterKey: String, number: Int) async throws -> StoredPage? {
        try await pool.read { db in
            try Row.fetchOne(
                db,
                sql:
                    "SELECT ids, count, pages, fetchedAt, usedAt FROM listPage WHERE resource = ? AND filterKey = ? AND page = ?",
                arguments: [resource.rawValue, filterKey, number]
            ).map(Self.storedPage)
        }
    }

    /// The newest stored non-empty page of a list, for its totals.
    func newestPage(resource: RecordKind, filterKey: String) async throws -> StoredPage? {
        try await pool.read { db in
            try Row.fetchOne(
                db,
                sql:
                    "SELECT ids, count, pages, fetchedAt, usedAt FROM listPage WHERE resource = ? AND filterKey = ? AND pages > 0 ORDER BY fetchedAt DESC LIMIT 1",
                arguments: [resource.rawValue, filterKey]
            ).map(Self.storedPage)
        }
    }

    private static func storedPage(_ row: Row) -> StoredPage {
        StoredPage(
            ids: Self.ids(row["ids"]), count: row["count"], pages: row["pages"],
            fetchedAt: Date(timeIntervalSince1970: row["fetchedAt"]),
            usedAt: Date(timeIntervalSince1970: row["usedAt"]))
    }

    /// The stored records among `ids`, by id.
    func records(_ resource: RecordKind, ids: [Int]) async throws -> [Int: StoredRecord] {
        guard !ids.isEmpty else { return [:] }
        return try await pool.read { db in try Self.records(resource, ids: ids, db) }
    }

    // Reads use cached statements (no re-preparing, no authorizer pass per request) and
    // columns by position (a lookup by name lowercases the name on every access).
    private static func records(_ resource: RecordKind, ids: [Int], _ db: Database) throws -> [Int: StoredRecord] {
        let placeholders = databaseQuestionMarks(count: ids.count)
        let statement = try db.cachedStatement(
            sql: "SELECT id, related, json, fetchedAt FROM \(resource.table) WHERE id IN (\(placeholders))")
        let rows = try Row.fetchAll(statement, arguments: StatementArguments(ids))
        return Dictionary(
            uniqueKeysWithValues: rows.map {
                (
                    $0[0] as Int,
                    StoredRecord(json: $0[2], related: Self.ids($0[1]), fetchedAt: Date(timeIntervalSince1970: $0[3]))
                )
            })
    }

    private static func episodeSummaries(ids: [Int], _ db: Database) throws -> [Int: EpisodeSummary] {
        let statement = try db.cachedStatement(
            sql: "SELECT id, code, name, airDate FROM episode WHERE id IN (\(databaseQuestionMarks(count: ids.count)))")
        let rows = try Row.fetchAll(statement, arguments: StatementArguments(ids))
        return Dictionary(
            uniqueKeysWithValues: rows.map {
                ($0[0] as Int, EpisodeSummary(id: $0[0], code: $0[1], name: $0[2], airDate: $0[3]))
            })
    }

    /// A character and the summaries of its cached episodes, in one read (the hot path of
    /// `characters.get`).
    func characterWithEpisodeSummaries(
        id: Int
    ) async throws -> (record: StoredRecord, summaries: [Int: EpisodeSummary])? {
        try await pool.read { db in
            guard let record = try Self.records(.character, ids: [id], db)[id] else { return nil }
            let summaries = record.related.isEmpty ? [:] : try Self.episodeSummaries(ids: record.related, db)
            return (record, summaries)
        }
    }

    /// Episode summaries (id, code, name, air date) among `ids`, by id.
    func episodeSummaries(ids: [Int]) async throws -> [Int: EpisodeSummary] {
        guard !ids.isEmpty else { return [:] }
        return try await pool.read { db in try Self.episodeSummaries(ids: ids, db) }
    }

    /// Ids as stored: comma-separated.
    static func list(_ ids: [Int]) -> String {
        ids.map(String.init).joined(separator: ",")
    }

    /// Parses "1,2,3" byte by byte (this runs for every related id of every record read).
    static func ids(_ text: String) -> [Int] {
        var ids: [Int] = []
        var value = 0
        var digits = false
        for byte in text.utf8 {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                value = value &* 10 &+ Int(byte &- UInt8(ascii: "0"))
                digits = true
            } else {
                if digits { ids.append(value) }
                value = 0
                digits = false
            }
        }
        if digits { ids.append(value) }
        return ids
    }

    func image(id: Int) async throws -> StoredImage? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT contentType, bytes, fetchedAt FROM image WHERE id = ?", arguments: [id])
                .map {
                    StoredImage(
                        contentType: $0["contentType"], bytes: $0["bytes"],
                        fetchedAt: Date(timeIntervalSince1970: $0["fetchedAt"]))
                }
        }
    }

    /// Favorite ids, oldest first.
    func favoriteIDs() async throws -> [Int] {
        try await pool.read { db in
            try Int.fetchAll(db, sql: "SELECT id FROM favorite ORDER BY addedAt, id")
        }
    }

    /// Rows per table, for health.
    func counts() async throws -> [String: Int] {
        try await pool.read { db in
            var counts: [String: Int] = [:]
            for table in ["character", "location", "episode", "listPage", "image", "favorite"] {
                counts[table == "listPage" ? "listPages" : table + "s"] =
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0
            }
            return counts
        }
    }
}
