import Foundation
import GRDB
import ServiceKit
import Messaging
import RnmAPI
import TestSupport
import Testing

@testable import CharacterService

/// Issue 29, row 11: a cache file that is not a usable database is set aside and rebuilt; the
/// favorites, in their own file, are kept. And a database written by an older version opens.
@Suite("CharacterService with a damaged or old database file", .cleansUp)
struct DamagedDatabaseTests {
    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case randomBytes, truncated, folder, damagedInside
        var testDescription: String { rawValue }

        func apply(to path: String) throws {
            let manager = FileManager.default
            switch self {
            case .randomBytes:
                try manager.removeItem(atPath: path)
                let bytes = (0..<100_000).map { _ in UInt8.random(in: 0...255) }
                try Data(bytes).write(to: URL(fileURLWithPath: path))
            case .truncated:
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
                try handle.truncate(atOffset: 5000)
                try handle.close()
            case .folder:
                try manager.removeItem(atPath: path)
                try manager.createDirectory(atPath: path, withIntermediateDirectories: false)
            case .damagedInside:
                // Pages 3 to 6 overwritten; page 1 (the schema) intact, so the file still opens.
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
                try handle.seek(toOffset: 8192)
                handle.write(Data(repeating: 0xFF, count: 16_384))
                try handle.close()
            }
        }
    }

    @Test(
        "the service starts, says where the damaged file went, answers, and keeps the favorites",
        arguments: Damage.allCases)
    func damaged(_ damage: Damage) async throws {
        let path = temporaryDirectory() + "/characters.sqlite"
        let first = try await CharacterHarness.start(databasePath: path)
        _ = try await first.call(RPCMethods.charactersList, .init())
        _ = try await first.call(RPCMethods.favoritesAdd, .init(id: 2))
        try await first.stop()
        // Everything in the main file (none left in the journal), then the damage to it. Waiting
        // on a lock as the service's own connections do: the stopped service's last connection
        // may still be closing (its closing checkpoint holds the file for a moment).
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        _ = try await queue.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        try queue.close()
        try damage.apply(to: path)
        let damagedSize = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil

        let harness = try await CharacterHarness.start(databasePath: path)
        let health = try await harness.call(RPCMethods.charactersHealth, NoParams())
        let aside = try #require(health.storage?.setAside, "health names where the damaged file went")
        #expect(aside.hasPrefix(path + ".damaged-"))
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: aside, isDirectory: &isFolder))
        #expect(isFolder.boolValue == (damage == .folder), "the damaged file itself, kept")
        if let damagedSize, damage == .randomBytes {
            #expect((try FileManager.default.attributesOfItem(atPath: aside)[.size] as? Int) == damagedSize)
        }
        #expect(health.cache["characters"] == 0, "an empty cache in its place")
        let page = try await harness.call(RPCMethods.charactersList, .init())
        #expect(page.items.count == 20 && page.freshness.source == .upstream)
        #expect(try await harness.call(RPCMethods.favoritesList, NoParams()).items.map(\.name) == ["Morty Smith"])
        try await harness.stop()
    }

    @Test("a cache written by the first version (schema v1, favorites inside) opens, migrated, its favorites moved")
    func olderSchema() async throws {
        let path = temporaryDirectory() + "/characters.sqlite"
        let pool = try DatabasePool(path: path)
        try CharacterDatabase.migrator.migrate(pool, upTo: "v1")
        let rick = try JSONEncoder().encode(
            Character(
                id: 1, name: "Rick Sanchez (as cached by v1)", status: "Alive", species: "Human", type: "",
                gender: "Male", origin: PlaceRef(name: "Earth (C-137)", id: 1),
                location: PlaceRef(name: "Citadel of Ricks", id: 3), image: "", episodeIds: [1],
                created: "2017-11-04T18:48:46.250Z"))
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO character (id, name, status, related, json, fetchedAt) \
                    VALUES (1, 'Rick Sanchez', 'Alive', '1', ?, ?)
                    """, arguments: [rick, Date().timeIntervalSince1970])
            try db.execute(sql: "INSERT INTO favorite (id, addedAt) VALUES (1, 1), (2, 2)")
        }
        try pool.close()

        let harness = try await CharacterHarness.start(maxAge: 600, databasePath: path)
        let favorites = try await harness.call(RPCMethods.favoritesList, NoParams()).items
        #expect(favorites.map(\.id) == [1, 2])
        #expect(favorites.first?.name == "Rick Sanchez (as cached by v1)", "the old cache's record, fresh, served")
        let health = try await harness.call(RPCMethods.charactersHealth, NoParams())
        #expect(health.storage?.setAside == nil && health.cache["favorites"] == 2)
        let favoritesFile = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(
            "favorites.sqlite")
        #expect(FileManager.default.fileExists(atPath: favoritesFile.path))
        try await harness.stop()
    }
}

@Suite("CharacterService's favorites file", .cleansUp)
struct FavoritesFileTests {
    @Test("the favorites file cannot be the cache file itself (adopting would empty it)")
    func notTheCache() throws {
        let directory = temporaryDirectory()
        let configuration = CachingServiceConfiguration(
            socketPath: directory + "/c.sock", databasePath: directory + "/characters.sqlite",
            upstreamURL: "http://127.0.0.1:9/api", maxAgeSeconds: 600)
        #expect(throws: (any Error).self) {
            _ = try CharacterServiceApp.router(
                configuration: configuration, settings: .init(favoritesPath: directory + "/./characters.sqlite"),
                logger: testLogger())
        }
    }
}
