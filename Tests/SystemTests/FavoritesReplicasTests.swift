import Foundation
import Messaging
import RnmAPI
import TestSupport
import Testing

/// Two whole systems (Gateway, CharacterService, UniversityService each), their
/// CharacterServices replicas of one another on one PostgreSQL (`RNM_FAVORITES_URL`), as pods
/// behind one Kubernetes Service would be.
@Suite("Favorites shared by two CharacterService replicas on one PostgreSQL", .cleansUp)
struct FavoritesReplicasTests {
    @Test(
        "added on one, listed by the other at once; PostgreSQL down: clear error, characters answer; no password logged"
    )
    func replicas() async throws {
        guard let url = try await TestPostgres.freshURL() else { return }
        let target = TestPostgres.address(url)
        let proxy = try await TCPProxy.start(to: target.host, port: target.port)
        let shared = TestPostgres.url(url, port: proxy.port)
        let settings = ["RNM_FAVORITES_URL": shared, "RNM_LOG_LEVEL": "debug", "RNM_CHARACTERS_MAX_AGE": "600"]
        try await RnmSystem.with(settings: settings, roles: [.characters, .gateway]) { one in
            try await RnmSystem.with(settings: settings, roles: [.characters, .gateway]) { other in
                let first = try await one.connect()
                let second = try await other.connect()
                #expect(try await second.call(RPCMethods.favoritesList, NoParams()).items.isEmpty)

                let added = ContinuousClock.now
                _ = try await first.call(RPCMethods.favoritesAdd, .init(id: 1))
                let listed = try await second.call(RPCMethods.favoritesList, NoParams())
                let seen = ContinuousClock.now - added
                #expect(listed.items.map(\.id) == [1], "the other replica's list, asked right after the add")
                _ = try await second.call(RPCMethods.favoritesRemove, .init(id: 1))
                #expect(try await first.call(RPCMethods.favoritesList, NoParams()).items.isEmpty)
                print("favorites replicas: added through one and listed by the other in \(seen) (add + list)")

                // Down: favorites answer -32007 naming PostgreSQL; a cached character still answers.
                _ = try await first.call(RPCMethods.charactersGet, .init(id: 2))
                await proxy.down()
                let error = await rpcError { try await first.call(RPCMethods.favoritesAdd, .init(id: 2)) }
                #expect(error?.code == .storageUnavailable, "\(String(describing: error))")
                #expect(error?.message.contains("PostgreSQL") == true, "\(String(describing: error))")
                #expect(try await first.call(RPCMethods.charactersGet, .init(id: 2)).character.name == "Morty Smith")
                // The Gateway's probe (RNM_HEALTH_TIMEOUT_MS) finds the CharacterService up: health
                // does not wait on PostgreSQL.
                let gateway = try await first.call(RPCMethods.gatewayHealth, NoParams())
                #expect(gateway.services["characters"]?.status == "up", "\(gateway)")

                // Back: favorites work again, without a restart, on both.
                try await proxy.up()
                let back = ContinuousClock.now
                try await waitUntil(30, "favorites back with PostgreSQL") {
                    (try? await first.call(RPCMethods.favoritesAdd, .init(id: 2))) != nil
                }
                print("favorites replicas: working again \(ContinuousClock.now - back) after PostgreSQL came back")
                #expect(try await second.call(RPCMethods.favoritesList, NoParams()).items.map(\.id) == [2])
                await first.close()
                await second.close()
                if let password = TestPostgres.password(url) {
                    for system in [one, other] {
                        let log = system.log("characters")
                        #expect(log.contains("PostgreSQL"), "the log names the store")
                        #expect(!log.contains(password), "the password is in the CharacterService's log")
                    }
                }
            }
        }
        await proxy.down()
    }

    @Test(
        "PostgreSQL really stopped: favorites answer -32007 while a cached character answers; started again: they work")
    func stoppedAndStarted() async throws {
        guard let postgres = try await ThrowawayPostgres.start() else { return }
        let settings = ["RNM_FAVORITES_URL": postgres.url, "RNM_CHARACTERS_MAX_AGE": "600"]
        do {
            try await RnmSystem.with(settings: settings, roles: [.characters, .gateway]) { system in
                let client = try await system.connect()
                _ = try await client.call(RPCMethods.favoritesAdd, .init(id: 1))
                try await postgres.pause()
                let error = await rpcError { try await client.call(RPCMethods.favoritesList, NoParams()) }
                #expect(error?.code == .storageUnavailable, "\(String(describing: error))")
                #expect(error?.message.contains("PostgreSQL") == true, "\(String(describing: error))")
                #expect(try await client.call(RPCMethods.charactersGet, .init(id: 1)).character.name == "Rick Sanchez")
                try await postgres.resume()
                let back = ContinuousClock.now
                try await waitUntil(30, "favorites back with PostgreSQL started again") {
                    (try? await client.call(RPCMethods.favoritesList, NoParams()))?.items.map(\.id) == [1]
                }
                print("favorites: working again \(ContinuousClock.now - back) after PostgreSQL was started again")
                await client.close()
            }
        } catch {
            try? await postgres.stop()
            throw error
        }
        try await postgres.stop()
    }
}
