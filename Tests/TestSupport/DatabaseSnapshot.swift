import Foundation
import GRDB

/// Every row of every table of a SQLite file, as text: two snapshots are equal when the
/// database holds the same rows with the same values.
public struct DatabaseSnapshot: Sendable, Equatable {
    /// Table name → its rows, each rendered as `column=value` pairs, sorted.
    public var tables: [String: [String]]

    /// Reads the database at `path` (a crashed writer's WAL is recovered, as SQLite does).
    /// Columns named in `ignoring` are left out (e.g. a fetch time that may move on).
    public static func read(_ path: String, ignoring ignored: Set<String> = []) throws -> DatabaseSnapshot {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            let names = try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM sqlite_master
                    WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%'
                    """)
            var tables: [String: [String]] = [:]
            for name in names {
                let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(name.quotedDatabaseIdentifier)")
                tables[name] = rows.map { row in
                    row.columnNames.filter { !ignored.contains($0) }.map { column in
                        "\(column)=\(row[column] as DatabaseValue)"
                    }.joined(separator: "|")
                }.sorted()
            }
            return DatabaseSnapshot(tables: tables)
        }
    }

    /// Rows in all tables.
    public var rowCount: Int { tables.values.reduce(0) { $0 + $1.count } }

    /// The rows of `self` missing from `other` ("table: row").
    public func rowsMissing(from other: DatabaseSnapshot) -> [String] {
        tables.flatMap { table, rows in
            let present = Set(other.tables[table] ?? [])
            return rows.filter { !present.contains($0) }.map { "\(table): \($0.prefix(120))" }
        }
    }

    /// `PRAGMA integrity_check` of the database at `path`: "ok" when sound.
    public static func integrityCheck(_ path: String) throws -> String {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ")
        }
    }
}
