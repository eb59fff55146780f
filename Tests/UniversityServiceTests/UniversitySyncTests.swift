import Foundation
import Messaging
import RnmAPI
import TestSupport
import Testing

/// Issue 29 loose ends: the world list has its own deadline, and two syncs at once are one.
@Suite("universities.sync", .cleansUp)
struct UniversitySyncTests {
    @Test("a world list slower than the ordinary 5 s timeout syncs; two syncs at once download it once")
    func slowAndShared() async throws {
        let harness = try await UniversityHarness.start()
        harness.upstream.latency = .milliseconds(6000)
        async let first = harness.client.call(RPCMethods.universitiesSync, NoParams(), timeout: .seconds(20))
        try await waitUntil(5, "the first sync asked") { harness.upstream.requestCount >= 1 }
        async let second = harness.client.call(RPCMethods.universitiesSync, NoParams(), timeout: .seconds(20))
        let (one, two) = try await (first, second)
        #expect(one == two && one.universities > 9000)
        let worldRequests = harness.upstream.requests.filter { $0.path == "/search" && $0.query.isEmpty }
        #expect(worldRequests.count == 1, "\(worldRequests.count) downloads of the world list")
        try await harness.stop()
    }

    @Test("a sync with the upstream failing says the previous mirror stays, and the cache still answers")
    func failedSyncKeepsTheMirror() async throws {
        let harness = try await UniversityHarness.start()
        _ = try await harness.client.call(RPCMethods.universitiesSync, NoParams(), timeout: .seconds(20))
        harness.upstream.fault = .status(503)
        let error = await harness.error {
            try await harness.client.call(RPCMethods.universitiesSync, NoParams(), timeout: .seconds(20))
        }
        #expect(error?.code == .upstreamUnavailable)
        #expect(error?.message.hasPrefix("the sync could not fetch the world list: ") == true, "\(error)")
        #expect(error?.message.contains("the previous mirror stays in force") == true)
        let japan = try await harness.client.call(RPCMethods.universitiesList, .init(country: "Japan"))
        #expect(japan.freshness.stale && !japan.items.isEmpty)
        try await harness.stop()
    }
}

/// Issue 29 loose end: a search across countries once said `stale: false` whatever the
/// mirror's age. It follows the cache rule now, with the mirror as the stored copy.
@Suite("universities.list by name across countries", .cleansUp)
struct UniversitySearchEverywhereTests {
    @Test("past the max age the upstream's search answers; when it fails, the mirror's matches, stale")
    func searchFollowsTheCacheRule() async throws {
        let harness = try await UniversityHarness.start()
        _ = try await harness.client.call(RPCMethods.universitiesSync, NoParams(), timeout: .seconds(20))
        let expected = Set(
            UniversityFixtures.world.map { $0["name"] as! String }.filter { $0.lowercased().contains("tokyo") })
        let live = try await harness.client.call(RPCMethods.universitiesList, .init(name: "tokyo"))
        #expect(live.country == allCountries && Set(live.items.map(\.name)) == expected)
        #expect(live.freshness.source == .upstream && !live.freshness.stale)
        #expect(harness.upstream.requests.last?.query == ["name": "tokyo"])
        harness.upstream.fault = .status(503)
        let offline = try await harness.client.call(RPCMethods.universitiesList, .init(name: "tokyo"))
        #expect(Set(offline.items.map(\.name)) == expected && offline.count == expected.count)
        #expect(offline.freshness.stale && offline.freshness.upstreamError?.contains("503") == true)
        try await harness.stop()
    }

    @Test("a mirror within the max age answers without asking")
    func freshMirrorAnswers() async throws {
        let harness = try await UniversityHarness.start(maxAge: 600)
        _ = try await harness.client.call(RPCMethods.universitiesSync, NoParams(), timeout: .seconds(20))
        let asked = harness.upstream.requestCount
        let search = try await harness.client.call(RPCMethods.universitiesList, .init(name: "tokyo"))
        #expect(search.freshness.source == .cache && !search.freshness.stale && !search.items.isEmpty)
        #expect(harness.upstream.requestCount == asked)
        try await harness.stop()
    }
}
