import Foundation
import Messaging
import RnmAPI
import TestSupport
import Testing

@Suite("CharacterService when the upstream fails", .cleansUp)
struct CharacterFailureTests {
    static let faults: [UpstreamFault] = [
        .status(500), .status(503), .status(429), .hang, .garbage, .truncated, .html, .down,
    ]

    @Test("nothing cached: -32002, retryable, and the cache stays empty", arguments: faults)
    func nothingCached(fault: UpstreamFault) async throws {
        let harness = try await CharacterHarness.start(maxAge: 0)
        harness.upstream.fault = fault
        let list = await harness.error { try await harness.call(RPCMethods.charactersList, .init()) }
        #expect(list?.code == .upstreamUnavailable && list?.retryable == true)
        let get = await harness.error { try await harness.call(RPCMethods.charactersGet, .init(id: 1)) }
        #expect(get?.code == .upstreamUnavailable)
        #expect(try await harness.databaseDump().isEmpty)
        try await harness.stop()
    }

    @Test("cached: a stale answer saying why, and the cache unchanged, row for row", arguments: faults)
    func staleFromCache(fault: UpstreamFault) async throws {
        let harness = try await CharacterHarness.start(maxAge: 0)
        let fresh = try await harness.call(RPCMethods.charactersList, .init(status: "dead"))
        let rick = try await harness.call(RPCMethods.charactersGet, .init(id: 1))
        let before = try await harness.databaseDump()
        harness.upstream.fault = fault
        let stale = try await harness.call(RPCMethods.charactersRefresh, .init(status: "dead"))
        #expect(stale.freshness.stale && stale.freshness.source == .cache)
        #expect(stale.freshness.upstreamError?.isEmpty == false)
        #expect(stale.freshness.fetchedAt == fresh.freshness.fetchedAt)
        #expect(stale.items == fresh.items)
        let staleRick = try await harness.call(RPCMethods.charactersGet, .init(id: 1))
        #expect(
            staleRick.freshness.stale && staleRick.character == rick.character && staleRick.episodes == rick.episodes)
        #expect(try await harness.databaseDump() == before)
        try await harness.stop()
    }

    @Test("a young cache is served without asking the upstream; refresh asks it anyway")
    func maxAge() async throws {
        let harness = try await CharacterHarness.start(maxAge: 600)
        _ = try await harness.call(RPCMethods.charactersList, .init(page: 3))
        let cached = try await harness.call(RPCMethods.charactersList, .init(page: 3))
        #expect(cached.freshness.source == .cache && !cached.freshness.stale)
        #expect(harness.upstream.requestCount == 1)
        let refreshed = try await harness.call(RPCMethods.charactersRefresh, .init(page: 3))
        #expect(refreshed.freshness.source == .upstream)
        #expect(harness.upstream.requestCount == 2)
        try await harness.stop()
    }
}
