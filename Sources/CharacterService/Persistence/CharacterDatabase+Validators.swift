import Foundation
import GRDB
import RnmAPI
import ServiceKit

/// Conditional revalidation: each stored list page, and each record stored from a request of
/// its own, keeps the upstream's validator, asked with next time; a `304` renews the copy's
/// age without rewriting it.
extension CharacterDatabase {
    static func registerValidatorMigration(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v4-validators") { db in
            try Validator.addColumns(to: ["listPage"] + RecordKind.allCases.map(\.table), in: db)
        }
    }

    /// The validator of a stored page.
    func validator(resource: RecordKind, filterKey: String, page: Int) async throws -> Validator? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT etag, lastModified FROM listPage WHERE resource = ? AND filterKey = ? AND page = ?",
                arguments: [resource.rawValue, filterKey, page]
            ).flatMap { Validator(row: $0, at: 0) }
        }
    }

    /// The validator of a stored record.
    func validator(resource: RecordKind, id: Int) async throws -> Validator? {
        let select = "SELECT etag, lastModified FROM " + resource.table + " WHERE id = ?"
        return try await pool.read { db in
            try Row.fetchOne(db, sql: select, arguments: [id]).flatMap { Validator(row: $0, at: 0) }
        }
    }

    /// A `304` for a page: the stored copy is the upstream's as of `date`.
    func renew(resource: RecordKind, filterKey: String, page: Int, at date: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE listPage SET fetchedAt = ? WHERE resource = ? AND filterKey = ? AND page = ? \
                    AND \(CopyOrder.replaces("?", storedIn: "listPage"))
                    """,
                arguments: [
                    date.timeIntervalSince1970, resource.rawValue, filterKey, page, date.timeIntervalSince1970,
                ])
        }
    }

    /// A `304` for a record: the stored copy is the upstream's as of `date`.
    func renew(resource: RecordKind, id: Int, at date: Date) async throws {
        let update =
            "UPDATE " + resource.table + " SET fetchedAt = ? WHERE id = ? AND "
            + CopyOrder.replaces("?", storedIn: resource.table)
        try await pool.write { db in
            try db.execute(sql: update, arguments: [date.timeIntervalSince1970, id, date.timeIntervalSince1970])
        }
    }
}
