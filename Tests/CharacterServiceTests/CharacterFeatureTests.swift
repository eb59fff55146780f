import Foundation
import Messaging
import NIOCore
import RnmAPI
import Synchronization
import TestSupport
import Testing

@Suite("CharacterService sync, stats, images, favorites, health", .cleansUp)
struct CharacterFeatureTests {
    @Test(
        """
        sync mirrors every page and every avatar with one request each, reports progress, and the mirror serves offline
        """
    )
    func sync() async throws {
        let harness = try await CharacterHarness.start(maxAge: 0)
        let updates = Recorder<ProgressUpdate>()
        let result = try await harness.client.call(RPCMethods.charactersSync, NoParams(), timeout: .seconds(60)) {
            updates.append($0)
        }
        #expect(result.characters == 493 && result.locations == 76 && result.episodes == 31)
        #expect(result.requests == 25 + 4 + 2 + 493 && result.avatars == 493)
        #expect(harness.upstream.requestCount == 31 + 493)
        let progress = updates.values
        #expect(progress.last?.done == 524 && progress.last?.total == 524)
        #expect(progress.map(\.done) == progress.map(\.done).sorted())
        #expect(progress.contains { $0.message.contains("characters page") })
        harness.upstream.fault = .status(503)
        let offline = try await harness.call(RPCMethods.charactersList, .init(page: 17))
        #expect(offline.freshness.stale && offline.items.count == 20)
        let locations = try await harness.call(RPCMethods.locationsList, .init(page: 4))
        #expect(locations.items.count == 16)
        try await harness.stop()
    }

    @Test("the data twice over (the test upstream's scale, for benchmarks): a sync mirrors it all, each copy coherent")
    func syncOfCopies() async throws {
        let fixtures = RickAndMortyFixtures(scale: 2)
        let upstream = try await TestUpstream.start(route: fixtures.route)
        let harness = try await CharacterHarness.start(upstream: (upstream, fixtures))
        let result = try await harness.client.call(RPCMethods.charactersSync, NoParams(), timeout: .seconds(120))
        #expect(result.characters == 986 && result.locations == 152 && result.episodes == 62)
        #expect(result.avatars == 986)
        // Rick's copy: his episodes, origin and location are the copies of his own.
        let rick = try await harness.call(RPCMethods.charactersGet, .init(id: 494))
        #expect(rick.character.name == "Rick Sanchez (copy 2)")
        #expect(rick.character.origin == PlaceRef(name: "Earth (C-137) (copy 2)", id: 77))
        #expect(rick.episodes.first?.id == 32 && rick.episodes.first?.name == "Pilot (copy 2)")
        #expect(rick.episodes.count == 31 && rick.episodes.allSatisfy { (32...62).contains($0.id) })
        let earth = try await harness.call(RPCMethods.locationsGet, .init(id: 77))
        let residents = try await harness.call(RPCMethods.locationsGet, .init(id: 1)).residents.map(\.id)
        #expect(earth.residents.map(\.id) == residents.map { $0 + 493 })
        let copied = try await harness.call(RPCMethods.charactersImage, .init(id: 494))
        #expect(Data(base64Encoded: copied.bytes) == RickAndMortyFixtures.servedAvatar(494, scale: 2))
        try await harness.stop()
    }

    @Test("a sync cut short by the upstream fails with -32002 and keeps the pages it stored")
    func syncInterrupted() async throws {
        let harness = try await CharacterHarness.start(maxAge: 0)
        harness.upstream.latency = .milliseconds(20)
        let sync = Task { try await harness.client.call(RPCMethods.charactersSync, NoParams(), timeout: .seconds(60)) }
        let upstream = harness.upstream
        try await waitUntil(10, "a few pages") { upstream.requestCount >= 8 }
        upstream.fault = .status(500)
        let error = await harness.error { try await sync.value }
        #expect(error?.code == .upstreamUnavailable)
        let stored = try await harness.databaseDump().filter { $0.hasPrefix("character:") }.count
        #expect(stored >= 20 * 4)
        // Asked again while the upstream fails: the message names the sync and what stays,
        // never "nothing is cached" (page 1 is).
        let again = await harness.error {
            try await harness.client.call(RPCMethods.charactersSync, NoParams(), timeout: .seconds(60))
        }
        #expect(again?.code == .upstreamUnavailable)
        #expect(again?.message.hasPrefix("the sync could not fetch characters page 1: ") == true, "\(again)")
        #expect(again?.message.contains("the previous mirror stays in force") == true)
        let page = try await harness.call(RPCMethods.charactersList, .init())
        #expect(page.freshness.stale && page.items.count == 20)
        try await harness.stop()
    }

    @Test("a sync whose avatars the upstream fails stops with -32002 naming the avatar, not an internal error")
    func syncStoppedAtAvatars() async throws {
        let harness = try await CharacterHarness.start(maxAge: 0)
        harness.fixtures.override = { request in
            request.path.contains("/avatar/") ? UpstreamResponse(status: 503, body: Array("busy".utf8)) : nil
        }
        let error = await harness.error {
            try await harness.client.call(RPCMethods.charactersSync, NoParams(), timeout: .seconds(60))
        }
        #expect(error?.code == .upstreamUnavailable, "\(error)")
        #expect(error?.message.hasPrefix("the sync could not fetch the avatar of character ") == true, "\(error)")
        #expect(error?.message.hasSuffix("the previous mirror stays in force, try again") == true)
        try await harness.stop()
    }

    @Test("stats: counts per status from the upstream's totals")
    func stats() async throws {
        let harness = try await CharacterHarness.start()
        let stats = try await harness.call(RPCMethods.charactersStats, NoParams())
        #expect(stats.total == 493)
        #expect(stats.byStatus == .init(alive: 281, dead: 147, unknown: 65))
        #expect(harness.upstream.requestCount == 4)
        _ = try await harness.call(RPCMethods.charactersStats, NoParams())
        #expect(harness.upstream.requestCount == 4)
        try await harness.stop()
    }

    @Test("images: bytes as served, content type from the bytes (PNG behind .jpeg), cached after the first call")
    func images() async throws {
        let harness = try await CharacterHarness.start()
        let morty = try await harness.call(RPCMethods.charactersImage, .init(id: 2))
        #expect(morty.contentType == "image/png")
        #expect(Data(base64Encoded: morty.bytes) == RickAndMortyFixtures.avatar(2))
        let rick = try await harness.call(RPCMethods.charactersImage, .init(id: 1))
        #expect(rick.contentType == "image/jpeg")
        #expect(harness.upstream.requestCount == 2)
        let again = try await harness.call(RPCMethods.charactersImage, .init(id: 2))
        #expect(again.bytes == morty.bytes && again.freshness.source == .cache)
        #expect(harness.upstream.requestCount == 2)
        let none = await harness.error { try await harness.call(RPCMethods.charactersImage, .init(id: 9999)) }
        #expect(none?.code == .notFound)
        try await harness.stop()
    }

    @Test("health: cache counts, upstream URL, last success and last error")
    func health() async throws {
        let harness = try await CharacterHarness.start(maxAge: 0)
        _ = try await harness.call(RPCMethods.charactersList, .init())
        var health = try await harness.call(RPCMethods.charactersHealth, NoParams())
        #expect(health.status == "ok" && health.service == "characters")
        #expect(health.cache["characters"] == 20 && health.cache["listPages"] == 1)
        #expect(health.upstream.url == harness.upstream.baseURL + "/api")
        #expect(health.upstream.lastSuccessAt != nil)
        harness.upstream.fault = .status(502)
        _ = try await harness.call(RPCMethods.charactersList, .init())
        health = try await harness.call(RPCMethods.charactersHealth, NoParams())
        #expect(health.status == "degraded" && health.upstream.lastError?.contains("502") == true)
        try await harness.stop()
    }

    @Test("no request ever goes to another host than the configured base, whatever the payloads name")
    func onlyConfiguredHost() async throws {
        let evil = try await TestUpstream.start { _ in .json("{}") }
        let harness = try await CharacterHarness.start(maxAge: 0)
        harness.fixtures.linkBase = evil.baseURL + "/api"
        _ = try await harness.call(RPCMethods.charactersList, .init(page: 2))
        let rick = try await harness.call(RPCMethods.charactersGet, .init(id: 1))
        #expect(rick.character.image.hasPrefix(evil.baseURL))  // the payload named it...
        _ = try await harness.call(RPCMethods.charactersImage, .init(id: 1))
        _ = try await harness.call(RPCMethods.locationsGet, .init(id: 3))
        _ = try await harness.call(RPCMethods.episodesGet, .init(id: 2))
        _ = try await harness.client.call(RPCMethods.charactersSync, NoParams(), timeout: .seconds(60))
        #expect(evil.requestCount == 0)  // ...and it was never contacted
        let host = String(harness.upstream.baseURL.dropFirst("http://".count))
        #expect(harness.upstream.requests.allSatisfy { $0.host == host && $0.path.hasPrefix("/api/") })
        try await harness.stop()
        await evil.stop()
    }
}
