import Foundation
import Messaging
import RnmAPI
import TestSupport
import Testing

/// Issue 29, row 9: the disk is best effort for reads.
@Suite("CharacterService with its disk full", .cleansUp)
struct DiskFullTests {
    @Test(
        "fetched answers are sent, health says the disk is full, a favorite fails naming it; freed, all is kept again")
    func diskFull() async throws {
        let disk = try SmallDisk()
        let harness = try await CharacterHarness.start(maxAge: 0, databasePath: disk.path + "/characters.sqlite")
        _ = try await harness.call(RPCMethods.charactersList, .init())
        try disk.fill()

        // Reads: answered from the upstream all the same.
        let page = try await harness.call(RPCMethods.charactersList, .init(page: 2))
        #expect(page.items.count == 20 && page.freshness.source == .upstream && !page.freshness.stale)
        let morty = try await harness.call(RPCMethods.charactersGet, .init(id: 2))
        #expect(morty.character.name == "Morty Smith" && !morty.episodes.isEmpty)
        let location = try await harness.call(RPCMethods.locationsGet, .init(id: 3))
        #expect(location.location.name == "Citadel of Ricks")

        // Health tells why; writes that are the request's point fail, naming the disk.
        let health = try await harness.call(RPCMethods.charactersHealth, NoParams())
        #expect(health.status == "degraded" && health.storage?.state == "full")
        #expect(health.storage?.lastError?.contains("the disk is full") == true)
        #expect((health.storage?.failedWrites ?? 0) >= 2)
        let favorite = await harness.error { try await harness.call(RPCMethods.favoritesAdd, .init(id: 1)) }
        #expect(favorite?.code == .storageUnavailable && favorite?.retryable == true)
        #expect(favorite?.message.contains("the disk is full") == true, "\(String(describing: favorite))")
        #expect(favorite?.message.contains(disk.path) == true)

        // Space again: the next fetch is kept, health is ok, the favorite is taken.
        try disk.free()
        _ = try await harness.call(RPCMethods.charactersList, .init(page: 3))
        _ = try await harness.call(RPCMethods.favoritesAdd, .init(id: 1))
        let healed = try await harness.call(RPCMethods.charactersHealth, NoParams())
        #expect(healed.status == "ok" && healed.storage?.state == "ok")
        #expect(try await harness.call(RPCMethods.favoritesList, NoParams()).items.map(\.id) == [1])
        try await harness.stop()
    }

    @Test("on a read-only file system the service starts from a copy of its files: it serves them and says so")
    func readOnlyFileSystem() async throws {
        let disk = try SmallDisk()
        let path = disk.path + "/characters.sqlite"
        let first = try await CharacterHarness.start(maxAge: 600, databasePath: path)
        _ = try await first.call(RPCMethods.charactersGet, .init(id: 1))
        _ = try await first.call(RPCMethods.favoritesAdd, .init(id: 2))
        try await first.stop()
        try disk.makeReadOnly()

        let harness = try await CharacterHarness.start(maxAge: 600, databasePath: path)
        let asked = harness.upstream.requestCount
        let rick = try await harness.call(RPCMethods.charactersGet, .init(id: 1))
        #expect(rick.character.name == "Rick Sanchez" && rick.freshness.source == .cache)
        #expect(harness.upstream.requestCount == asked, "served from what the file held")
        #expect(try await harness.call(RPCMethods.favoritesList, NoParams()).items.map(\.id) == [2])
        _ = try await harness.call(RPCMethods.favoritesAdd, .init(id: 3))
        let health = try await harness.call(RPCMethods.charactersHealth, NoParams())
        #expect(health.status == "degraded" && health.storage?.state == "read-only")
        #expect(health.storage?.standIn?.hasSuffix("%2Fcharacters.sqlite") == true)
        #expect(health.storage?.lastError?.contains(path) == true, "\(String(describing: health.storage))")
        try await harness.stop()
    }
}
