import Foundation
import Messaging
import RnmAPI
import ServiceRuntime
import Testing
import TestSupport

@testable import CharacterService

/// Where a test's favorites live.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }

    /// The settings for this store (a PostgreSQL schema of the test's own); nil when no
    /// PostgreSQL is given, which ``TestPostgres`` says in the test's result.
    func settings() async throws -> CharacterSettings? {
        switch self {
        case .sqlite: CharacterSettings()
        case .postgres: try await TestPostgres.freshURL().map { CharacterSettings(favoritesURL: $0) }
        }
    }
}

/// The favorites' behaviour, the same in the SQLite file and in PostgreSQL.
@Suite("Favorites in either store (SQLite, PostgreSQL)", .cleansUp)
struct FavoritesStoreTests {
    @Test("favorites persist across a restart and list the characters, oldest first", arguments: StoreKind.allCases)
    func persist(store: StoreKind) async throws {
        guard let settings = try await store.settings() else { return }
        let first = try await CharacterHarness.start(settings: settings)
        #expect(try await first.call(RPCMethods.favoritesAdd, .init(id: 1)) == FavoriteState(id: 1, favorite: true))
        _ = try await first.call(RPCMethods.favoritesAdd, .init(id: 5))
        _ = try await first.call(RPCMethods.favoritesAdd, .init(id: 2))
        #expect(try await first.call(RPCMethods.favoritesRemove, .init(id: 1)) == FavoriteState(id: 1, favorite: false))
        let unknown = await first.error { try await first.call(RPCMethods.favoritesAdd, .init(id: 9999)) }
        #expect(unknown?.code == .notFound)
        await first.client.close()
        try await first.server.stop()
        first.upstream.fault = .status(503)
        let second = try await CharacterHarness.start(
            upstream: (first.upstream, first.fixtures), databasePath: first.databasePath, settings: settings)
        let list = try await second.call(RPCMethods.favoritesList, NoParams())
        #expect(list.items.map(\.name) == ["Jerry Smith", "Morty Smith"])
        try await second.stop()
    }

    @Test(
        "adding twice keeps its place, removing a non-favorite is no error, health counts them",
        arguments: StoreKind.allCases)
    func idempotent(store: StoreKind) async throws {
        guard let settings = try await store.settings() else { return }
        let harness = try await CharacterHarness.start(settings: settings)
        _ = try await harness.call(RPCMethods.favoritesAdd, .init(id: 2))
        _ = try await harness.call(RPCMethods.favoritesAdd, .init(id: 1))
        _ = try await harness.call(RPCMethods.favoritesAdd, .init(id: 2))
        #expect(
            try await harness.call(RPCMethods.favoritesRemove, .init(id: 3)) == FavoriteState(id: 3, favorite: false))
        #expect(try await harness.call(RPCMethods.favoritesList, NoParams()).items.map(\.id) == [2, 1])
        let health = try await harness.call(RPCMethods.charactersHealth, NoParams())
        #expect(health.cache["favorites"] == 2 && health.storage?.state == "ok")
        try await harness.stop()
    }
}
