import Foundation
import Logging
import Messaging
import RnmAPI
import ServiceRuntime
import Testing
import TestSupport

@testable import CharacterService

/// The favorites in PostgreSQL: shared by services at once, an outage answered, the setting
/// checked, the password kept out of every error.
@Suite("Favorites in PostgreSQL: shared, outages, the setting", .cleansUp)
struct PostgresFavoritesTests {
    @Test("two services on one database: a favorite added through one is listed by the other at once")
    func shared() async throws {
        guard let url = try await TestPostgres.freshURL() else { return }
        let settings = CharacterSettings(favoritesURL: url)
        let one = try await CharacterHarness.start(settings: settings)
        let other = try await CharacterHarness.start(settings: settings)
        // Listed once before: a list kept by any cache would now be stale.
        #expect(try await other.call(RPCMethods.favoritesList, NoParams()).items.isEmpty)
        _ = try await one.call(RPCMethods.favoritesAdd, .init(id: 2))
        #expect(try await other.call(RPCMethods.favoritesList, NoParams()).items.map(\.id) == [2])
        _ = try await other.call(RPCMethods.favoritesRemove, .init(id: 2))
        #expect(try await one.call(RPCMethods.favoritesList, NoParams()).items.isEmpty)
        try await one.stop()
        try await other.stop()
    }

    @Test("database down: favorites fail with -32007 naming it, characters still answer; back: favorites work")
    func outage() async throws {
        guard let url = try await TestPostgres.freshURL() else { return }
        let target = TestPostgres.address(url)
        let proxy = try await TCPProxy.start(to: target.host, port: target.port)
        let harness = try await CharacterHarness.start(
            settings: CharacterSettings(favoritesURL: TestPostgres.url(url, port: proxy.port)))
        _ = try await harness.call(RPCMethods.favoritesAdd, .init(id: 1))
        await proxy.down()
        let failed = ContinuousClock.now
        let error = await harness.error { try await harness.call(RPCMethods.favoritesList, NoParams()) }
        #expect(ContinuousClock.now - failed < .seconds(6), "answered within the store's deadline")
        #expect(error?.code == .storageUnavailable && error?.retryable == true, "\(String(describing: error))")
        #expect(error?.message.contains("PostgreSQL") == true && error?.message.contains("favorites") == true)
        if let password = TestPostgres.password(url) { #expect(error?.message.contains(password) == false) }
        let add = await harness.error { try await harness.call(RPCMethods.favoritesAdd, .init(id: 2)) }
        #expect(add?.code == .storageUnavailable)
        // Everything else answers: a cached character, and health, which says why.
        #expect(try await harness.call(RPCMethods.charactersGet, .init(id: 1)).character.name == "Rick Sanchez")
        // Health at once (the Gateway's probe gives it RNM_HEALTH_TIMEOUT_MS, 1 s at least), saying why.
        let asked = ContinuousClock.now
        let health = try await harness.call(RPCMethods.charactersHealth, NoParams())
        #expect(ContinuousClock.now - asked < .seconds(2))
        #expect(health.storage?.state == "unreachable" && health.cache["favorites"] == nil)
        try await proxy.up()
        // Health alone finds the database back (nobody asked for a favorite).
        try await waitUntil(30, "health ok with the database back") {
            (try? await harness.call(RPCMethods.charactersHealth, NoParams()))?.storage?.state == "ok"
        }
        try await waitUntil(30, "favorites back with the database") {
            (try? await harness.call(RPCMethods.favoritesList, NoParams()))?.items.map(\.id) == [1]
        }
        _ = try await harness.call(RPCMethods.favoritesAdd, .init(id: 2))
        #expect(try await harness.call(RPCMethods.favoritesList, NoParams()).items.map(\.id) == [1, 2])
        try await harness.stop()
        await proxy.down()
    }

    @Test("four replicas starting at once on an empty database: one table, every favorite kept, no error")
    func startingTogether() async throws {
        guard let url = try await TestPostgres.freshURL() else { return }
        let stores = try (0..<4).map { _ in PostgresFavorites(url: try PostgresURL(url), logger: testLogger()) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for store in stores { group.addTask { try await store.run() } }
            try await withThrowingTaskGroup(of: Void.self) { adds in
                for (index, store) in stores.enumerated() {
                    adds.addTask { try await store.setFavorite(id: index + 1, true, at: Date()) }
                }
                try await adds.waitForAll()
            }
            for store in stores { #expect(try await store.ids().sorted() == [1, 2, 3, 4]) }
            group.cancelAll()
        }
    }

    @Test(
        "RNM_FAVORITES_URL: a URL that does not parse or another scheme is refused in one sentence, without it",
        arguments: ["not a url", "mysql://rnm:s3cret-word@db/rnm", "postgres://:s3cret-word@db/rnm", "s3cret-word"])
    func refused(text: String) throws {
        do {
            _ = try PostgresURL(text)
            Issue.record("\(text) was taken")
        } catch {
            let message = "\(error)"
            #expect(message.hasPrefix("RNM_FAVORITES_URL "), "\(message)")
            #expect(!message.contains("s3cret-word"), "\(message)")
        }
    }

    @Test("a URL names its database without the password; a service on it starts even while it is down")
    func redacted() async throws {
        let url = try PostgresURL("postgresql://rnm:s3cret%40word@db.example:6543/favs?sslmode=disable")
        #expect(url.redacted == "postgresql://rnm@db.example:6543/favs")
        #expect(url.configuration.password == "s3cret@word" && url.configuration.port == 6543)
        let dead = try ReservedPort()
        defer { dead.release() }
        let harness = try await CharacterHarness.start(
            settings: CharacterSettings(favoritesURL: "postgres://rnm:s3cret-word@127.0.0.1:\(dead.port)/rnm"))
        #expect(try await harness.call(RPCMethods.charactersGet, .init(id: 1)).character.id == 1)
        let error = await harness.error { try await harness.call(RPCMethods.favoritesAdd, .init(id: 1)) }
        #expect(error?.code == .storageUnavailable)
        #expect(error?.message.contains("s3cret") == false, "\(String(describing: error))")
        try await harness.stop()
    }
}
