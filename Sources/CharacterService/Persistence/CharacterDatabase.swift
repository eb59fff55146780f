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

    // MARK: Writes (one transaction per upstream answer)

    /// Stores a fetched list page and its records. Past `maxFilteredPages` pages of filtered
    /// lists, the least recently used are evicted; unfiltered pages (the mirror) and records
    /// never are.
    func store(
        page: FetchedPage, resource: RecordKind, filterKey: String, number: Int, fetchedAt: Date,
        validator: Validator? = nil, maxFilteredPages: Int = .max
    ) async throws {
        try await pool.write { db in
            try Self.upsert(page.records, resource: resource, fetchedAt: fetchedAt, in: db)
            try db.execute(
                sql:
                    """
                    INSERT INTO listPage (resource, filterKey, page, ids, count, pages, fetchedAt, usedAt, etag, \
                    lastModified) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(resource, filterKey, page) \
                    DO UPDATE SET ids = excluded.ids, count = excluded.count, pages = excluded.pages, \
                    fetchedAt = excluded.fetchedAt, usedAt = excluded.usedAt, etag = excluded.etag, \
                    lastModified = excluded.lastModified \
                    WHERE \(CopyOrder.replaces("excluded.fetchedAt", storedIn: "listPage"))
                    """,
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
                        """
                        DELETE FROM listPage WHERE rowid IN (SELECT rowid FROM listPage WHERE filterKey != '' \
                        ORDER BY usedAt LIMIT ?)
                        """,
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

    static func upsert(
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
            // An answer to a request that left before the stored copy's never replaces it
            // (RFC 9111 §4.3.4): a slow fetch finishing after a refresh keeps the refresh's.
            + " WHERE " + CopyOrder.replaces("excluded.fetchedAt", storedIn: table)
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
}
