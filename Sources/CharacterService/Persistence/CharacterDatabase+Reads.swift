import Foundation
import GRDB
import RnmAPI

/// Reads of the cache.
extension CharacterDatabase {
    func page(resource: RecordKind, filterKey: String, number: Int) async throws -> StoredPage? {
        try await pool.read { db in
            try Row.fetchOne(
                db,
                sql:
                    """
                    SELECT ids, count, pages, fetchedAt, usedAt FROM listPage WHERE resource = ? AND filterKey = ? \
                    AND page = ?
                    """,
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
                    """
                    SELECT ids, count, pages, fetchedAt, usedAt FROM listPage WHERE resource = ? AND filterKey = ? \
                    AND pages > 0 ORDER BY fetchedAt DESC LIMIT 1
                    """,
                arguments: [resource.rawValue, filterKey]
            ).map(Self.storedPage)
        }
    }

    static func storedPage(_ row: Row) -> StoredPage {
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
    static func records(_ resource: RecordKind, ids: [Int], _ db: Database) throws -> [Int: StoredRecord] {
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

    static func episodeSummaries(ids: [Int], _ db: Database) throws -> [Int: EpisodeSummary] {
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

    /// Rows per table, for health.
    func counts() async throws -> [String: Int] {
        try await pool.read { db in
            var counts: [String: Int] = [:]
            for table in ["character", "location", "episode", "listPage", "image"] {
                counts[table == "listPage" ? "listPages" : table + "s"] =
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0
            }
            return counts
        }
    }
}
