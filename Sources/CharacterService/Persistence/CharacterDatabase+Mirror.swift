import Foundation
import GRDB
import Messaging
import RnmAPI

/// What the last complete `characters.sync` left: the whole of each list, by count (the API's
/// ids run from 1 to its count, so the mirror is the records with ids up to it).
struct MirrorState: Sendable {
    var completedAt: Date
    var counts: [RecordKind: Int]
    var avatars: Int
}

/// The offline mirror: local queries over the stored records with the upstream's own filter
/// rules, and the mark a complete sync leaves.
extension CharacterDatabase {
    /// The lowercased columns each filter of the API is matched against.
    static var filterColumns: [RecordKind: [String: String]] {
        Dictionary(
            uniqueKeysWithValues: RecordKind.allCases.map { kind in
                (kind, Dictionary(uniqueKeysWithValues: kind.filters.map { ($0, RecordKind.filterColumn($0)) }))
            })
    }

    /// The values of a record's filter columns, in the order of its table's INSERT.
    static func keys(_ record: FetchedRecord, resource: RecordKind) -> [String] {
        resource.filters.map { (record.columns[$0] ?? "").lowercased() }
    }

    static func registerMirrorMigration(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v3-offline-mirror") { db in
            for (resource, columns) in filterColumns {
                try db.alter(table: resource.table) { t in
                    for column in columns.values.sorted() { t.add(column: column, .text).notNull().defaults(to: "") }
                }
            }
            // Records stored before: their filter columns from their JSON.
            let decoder = JSONDecoder()
            for row in try Row.fetchAll(db, sql: "SELECT id, json FROM character") {
                let character = try decoder.decode(Character.self, from: row["json"] as Data)
                try db.execute(
                    sql:
                        """
                        UPDATE character SET nameKey = ?, statusKey = ?, speciesKey = ?, typeKey = ?, genderKey = \
                        ? WHERE id = ?
                        """,
                    arguments: [
                        character.name.lowercased(), character.status.lowercased(), character.species.lowercased(),
                        character.type.lowercased(), character.gender.lowercased(), character.id,
                    ])
            }
            for row in try Row.fetchAll(db, sql: "SELECT id, json FROM location") {
                let location = try decoder.decode(Location.self, from: row["json"] as Data)
                try db.execute(
                    sql: "UPDATE location SET nameKey = ?, typeKey = ?, dimensionKey = ? WHERE id = ?",
                    arguments: [
                        location.name.lowercased(), location.type.lowercased(), location.dimension.lowercased(),
                        location.id,
                    ])
            }
            for row in try Row.fetchAll(db, sql: "SELECT id, json FROM episode") {
                let episode = try decoder.decode(Episode.self, from: row["json"] as Data)
                try db.execute(
                    sql: "UPDATE episode SET nameKey = ?, episodeKey = ? WHERE id = ?",
                    arguments: [episode.name.lowercased(), episode.code.lowercased(), episode.id])
            }
            try db.create(table: "mirror") { t in
                t.primaryKey("id", .integer).check { $0 == 1 }
                t.column("completedAt", .double).notNull()
                t.column("characters", .integer).notNull()
                t.column("locations", .integer).notNull()
                t.column("episodes", .integer).notNull()
                t.column("avatars", .integer).notNull()
            }
        }
    }

    /// Marks the mirror complete: every list holds `counts` records.
    /// - Throws: ``CharacterError/mirrorIncomplete(_:)`` (nothing marked) when a list does not
    ///   hold every record from 1 to its count.
    func completeMirror(counts: [RecordKind: Int], at date: Date) async throws {
        try await pool.write { db in
            for (resource, count) in counts {
                let held =
                    try Int.fetchOne(
                        db, sql: "SELECT COUNT(*) FROM " + resource.table + " WHERE id BETWEEN 1 AND ?",
                        arguments: [count]) ?? 0
                guard held == count else {
                    throw CharacterError.mirrorIncomplete("\(resource.plural): \(held) of \(count) stored")
                }
            }
            let avatars = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM image") ?? 0
            try db.execute(
                sql:
                    """
                    INSERT OR REPLACE INTO mirror (id, completedAt, characters, locations, episodes, avatars) \
                    VALUES (1, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    date.timeIntervalSince1970, counts[.character] ?? 0, counts[.location] ?? 0, counts[.episode] ?? 0,
                    avatars,
                ])
        }
    }

    /// The last complete mirror, if any.
    func mirror() async throws -> MirrorState? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT completedAt, characters, locations, episodes, avatars FROM mirror WHERE id = 1"
            ).map {
                MirrorState(
                    completedAt: Date(timeIntervalSince1970: $0[0]),
                    counts: [.character: $0[1], .location: $0[2], .episode: $0[3]], avatars: $0[4])
            }
        }
    }

    /// Page `page` (of 20, by id) of the mirror's records of `resource` matching `filters` as
    /// the upstream matches them (its `models/Character.js`): each a case-insensitive substring
    /// of its field, taken literally; for characters, a value beginning with "male" from the
    /// start of the field only (so `male` never matches `Female`). Only ids up to `upTo` count:
    /// the records of the last complete sync, whatever a later one added.
    func localPage(
        _ resource: RecordKind, filters: [(String, String)], page: Int, upTo: Int
    ) async throws -> (ids: [Int], count: Int) {
        var conditions = ["id <= ?"]
        var arguments: StatementArguments = [upTo]
        for (name, value) in filters {
            guard resource.filters.contains(name) else { continue }
            let column = RecordKind.filterColumn(name)
            if value.utf8.contains(0) {
                // SQLite reads a bound text up to its first NUL ("rick\0zzz" would match as "rick",
                // "\0" as everything); no field of the API's data holds one, so nothing matches.
                conditions.append("0")
            } else if resource == .character, value.hasPrefix("male") {
                conditions.append("substr(" + column + ", 1, ?) = ?")
                arguments += [value.unicodeScalars.count, value]
            } else {
                conditions.append("instr(" + column + ", ?) > 0")
                arguments += [value]
            }
        }
        // Column names come from the table above; every value is a bound parameter.
        let matching = " FROM " + resource.table + " WHERE " + conditions.joined(separator: " AND ")
        let countQuery = "SELECT COUNT(*)" + matching
        let pageQuery = "SELECT id" + matching + " ORDER BY id LIMIT \(RecordKind.pageSize) OFFSET ?"
        let countArguments = arguments
        let pageArguments = arguments + [(page - 1) * RecordKind.pageSize]
        return try await pool.read { db in
            let count = try Int.fetchOne(db, sql: countQuery, arguments: countArguments) ?? 0
            let ids = try Int.fetchAll(db, sql: pageQuery, arguments: pageArguments)
            return (ids, count)
        }
    }

    /// Character ids up to `upTo` with no stored avatar.
    func charactersWithoutAvatar(upTo: Int) async throws -> [Int] {
        try await pool.read { db in
            let stored = Set(try Int.fetchAll(db, sql: "SELECT id FROM image WHERE id <= ?", arguments: [upTo]))
            return (1...max(1, upTo)).filter { !stored.contains($0) && $0 <= upTo }
        }
    }
}
