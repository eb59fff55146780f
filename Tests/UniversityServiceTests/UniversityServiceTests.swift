import Foundation
import Messaging
import NIOCore
import RnmAPI
import TestSupport
import Testing

private let uae = "United Arab Emirates"

/// The fixture's UAE records, decoded independently of the service's own decoder.
private func fixtureUAE() throws -> [[String: Any]] {
    try JSONSerialization.jsonObject(with: UniversityFixtures.unitedArabEmirates) as! [[String: Any]]
}

@Suite("UniversityService, alone against a local upstream", .cleansUp)
struct UniversityServiceTests {
    @Test("list: the UAE's 37 universities, every field mapped, stateProvince null, fresh from upstream")
    func listUAE() async throws {
        let harness = try await UniversityHarness.start()
        let result = try await harness.list()  // default country
        #expect(result.country == uae)
        #expect(result.count == 37)
        #expect(result.items.count == 37)
        #expect(result.freshness.source == .upstream)
        #expect(result.freshness.stale == false)
        #expect(result.freshness.upstreamError == nil)
        #expect(result.freshness.fetchedAt.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil)
        let expected = try fixtureUAE()
        for (item, record) in zip(result.items, expected) {
            #expect(item.name == record["name"] as? String)
            #expect(item.country == record["country"] as? String)
            #expect(item.alphaTwoCode == record["alpha_two_code"] as? String)
            #expect(item.stateProvince == record["state-province"] as? String)
            #expect(item.domains == record["domains"] as? [String])
            #expect(item.webPages == record["web_pages"] as? [String])
        }
        #expect(result.items.filter { $0.stateProvince == nil }.count == 36)
        #expect(harness.upstream.requests.map(\.query) == [["country": uae]])
        try await harness.stop()
    }

    @Test("the result JSON carries stateProvince as null, not absent")
    func nullStateProvince() async throws {
        let harness = try await UniversityHarness.start()
        let reply = try await harness.client.call(
            method: "universities.list", params: ByteBuffer(string: "{}"), timeout: .seconds(10))
        let text = String(buffer: try #require(reply.result))
        #expect(text.contains(#""stateProvince":null"#))
        try await harness.stop()
    }

    @Test("other countries, any letter case; an unknown country is an empty list, not an error")
    func otherCountries() async throws {
        let harness = try await UniversityHarness.start()
        let japan = try await harness.list("japan")
        #expect(japan.count == UniversityFixtures.records(country: "Japan").count)
        #expect(japan.country == "Japan")
        let shouting = try await harness.list("UNITED arab EMIRATES")
        #expect(shouting.count == 37)
        let none = try await harness.list("UAE")
        #expect(none.count == 0 && none.items.isEmpty)
        #expect(none.freshness.source == .upstream)
        try await harness.stop()
    }

    @Test("the name filter keeps the names containing it, case-insensitively")
    func nameFilter() async throws {
        let harness = try await UniversityHarness.start()
        let result = try await harness.list(name: "american")
        let expected = try fixtureUAE().compactMap { $0["name"] as? String }.filter {
            $0.lowercased().contains("american")
        }
        #expect(!expected.isEmpty)
        #expect(result.items.map(\.name) == expected)
        #expect(result.count == expected.count)
        try await harness.stop()
    }

    @Test("get after a list makes no upstream call and answers from the cache")
    func getFromCache() async throws {
        let harness = try await UniversityHarness.start()
        _ = try await harness.list()
        harness.upstream.resetRequests()
        let name = try #require(try fixtureUAE().first?["name"] as? String)
        let detail = try await harness.get(name.uppercased())
        #expect(detail.university.name == name)
        #expect(detail.freshness.source == .cache)
        #expect(harness.upstream.requestCount == 0)
        try await harness.stop()
    }

    @Test("get in a never-fetched country fetches its list exactly once")
    func getNeverFetched() async throws {
        let harness = try await UniversityHarness.start()
        let detail = try await harness.get("Chiba University", country: "Japan")
        #expect(detail.university.country == "Japan")
        #expect(harness.upstream.requestCount == 1)
        _ = try await harness.get("Keio University", country: "japan")
        #expect(harness.upstream.requestCount == 1)
        try await harness.stop()
    }

    @Test("duplicate names: the first in the upstream's order answers, every time")
    func duplicateNames() async throws {
        let harness = try await UniversityHarness.start()
        let first = try await harness.get("Regent University College of Science and Technology", country: "Ghana")
        let again = try await harness.get("regent university college of science and technology", country: "ghana")
        #expect(first.university.domains == ["regent.edu.gh"])
        #expect(again.university == first.university)
        try await harness.stop()
    }

    @Test("an unknown name is -32001 naming the closest matches")
    func unknownName() async throws {
        let harness = try await UniversityHarness.start()
        _ = try await harness.list()
        let error = await harness.error { try await harness.get("American University of Dubay") }
        #expect(error?.code == .notFound)
        #expect(error?.message.contains("\"American University in Dubai\"") == true)
        #expect(error?.retryable == false)
        try await harness.stop()
    }

    @Test("refresh always asks the upstream, even when the cache is young")
    func refresh() async throws {
        let harness = try await UniversityHarness.start(maxAge: 3600)
        _ = try await harness.list()
        let cached = try await harness.list()
        #expect(cached.freshness.source == .cache)
        #expect(harness.upstream.requestCount == 1)
        let refreshed = try await harness.refresh()
        #expect(refreshed.freshness.source == .upstream)
        #expect(refreshed.count == 37)
        #expect(harness.upstream.requestCount == 2)
        try await harness.stop()
    }

    @Test("identical fetches in flight at once are made once")
    func singleFlight() async throws {
        let harness = try await UniversityHarness.start()
        // A slow upstream, so that most requests join the first fetch in flight; the ones that
        // miss the cache as it ends find its list stored instead of fetching again.
        harness.upstream.latency = .milliseconds(150)
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<10 { group.addTask { try await harness.list().count } }
            for try await count in group { #expect(count == 37) }
        }
        #expect(harness.upstream.requestCount == 1)
        try await harness.stop()
    }

    @Test(
        "invalid params are -32602",
        arguments: [
            ("universities.list", #"{"country":""}"#),
            ("universities.list", #"{"country":5}"#),
            ("universities.get", #"{}"#),
            ("universities.get", #"{"name":"  "}"#),
            ("universities.refresh", #"{"country":["x"]}"#),
        ])
    func invalidParams(method: String, params: String) async throws {
        let harness = try await UniversityHarness.start()
        let reply = try await harness.client.call(
            method: method, params: ByteBuffer(string: params), timeout: .seconds(5))
        let error = try JSONCoding.decode(RPCError.self, from: try #require(reply.error))
        #expect(error.code == .invalidParams)
        #expect(error.service == "universities")
        #expect(harness.upstream.requestCount == 0)
        try await harness.stop()
    }

    @Test("health reports cache counts, the upstream URL and its last error")
    func health() async throws {
        let harness = try await UniversityHarness.start()
        _ = try await harness.list()
        var health = try await harness.client.call(RPCMethods.universitiesHealth, NoParams())
        #expect(health.service == "universities")
        #expect(health.status == "ok")
        #expect(health.cache["universities"] == 37)
        #expect(health.cache["countries"] == 1)
        #expect(health.upstream.url == harness.upstream.baseURL)
        #expect(health.upstream.lastSuccessAt != nil)
        harness.upstream.fault = .status(503)
        _ = try await harness.list()
        health = try await harness.client.call(RPCMethods.universitiesHealth, NoParams())
        #expect(health.status == "degraded")
        #expect(health.upstream.lastError?.contains("503") == true)
        try await harness.stop()
    }
}

@Suite("UniversityService when the upstream fails", .cleansUp)
struct UniversityFailureTests {
    static let faults: [UpstreamFault] = [
        .status(500), .status(503), .status(429), .hang, .garbage, .truncated, .html, .down,
    ]

    @Test("with nothing cached: -32002, retryable, and nothing is cached", arguments: faults)
    func noCache(fault: UpstreamFault) async throws {
        let harness = try await UniversityHarness.start()
        harness.upstream.fault = fault
        let error = await harness.error { try await harness.list() }
        #expect(error?.code == .upstreamUnavailable)
        #expect(error?.retryable == true)
        #expect(error?.message.contains(uae) == true)
        let getError = await harness.error { try await harness.get("Khalifa University") }
        #expect(getError?.code == .upstreamUnavailable)
        #expect(try await harness.cached(uae) == nil)
        try await harness.stop()
    }

    @Test("with a cached list: stale answer with the reason, cache unchanged", arguments: faults)
    func withCache(fault: UpstreamFault) async throws {
        let harness = try await UniversityHarness.start()
        let fresh = try await harness.list()
        let before = try #require(try await harness.cached(uae))
        harness.upstream.fault = fault
        for stale in [try await harness.list(), try await harness.refresh()] {
            #expect(stale.freshness.stale == true)
            #expect(stale.freshness.source == .cache)
            #expect(stale.freshness.upstreamError?.isEmpty == false)
            #expect(stale.freshness.fetchedAt == fresh.freshness.fetchedAt)
            #expect(stale.items == fresh.items)
        }
        let after = try #require(try await harness.cached(uae))
        #expect(after.fetchedAt == before.fetchedAt)
        #expect(after.items == before.items)
        try await harness.stop()
    }

    @Test("an upstream that is not listening at all: -32002 cold, stale when cached")
    func upstreamGone() async throws {
        let harness = try await UniversityHarness.start()
        _ = try await harness.list("Japan")
        await harness.upstream.stop()
        let cold = await harness.error { try await harness.list() }
        #expect(cold?.code == .upstreamUnavailable)
        let stale = try await harness.list("Japan")
        #expect(stale.freshness.stale)
        #expect(stale.freshness.upstreamError?.contains("unreachable") == true)
        try await harness.stop()
    }

    @Test("the cache survives a restart of the service")
    func cacheSurvivesRestart() async throws {
        let first = try await UniversityHarness.start()
        _ = try await first.list()
        await first.client.close()
        try await first.server.stop()
        first.upstream.fault = .status(500)
        let second = try await UniversityHarness.start(upstream: first.upstream, databasePath: first.databasePath)
        let stale = try await second.list()
        #expect(stale.count == 37)
        #expect(stale.freshness.stale)
        try await second.stop()
    }
}

@Suite("UniversityService: each read counted once, by how the cache rule answered it", .cleansUp)
struct UniversityAnswerCountTests {
    @Test("a get fetches its country once, then answers from it; a 304 renews the stored list, counted as fetched")
    func counted() async throws {
        let harness = try await UniversityHarness.start()
        _ = try await harness.get("Chiba University", country: "Japan")
        #expect(try await answers(harness) == ["fetched": 1])
        _ = try await harness.get("Keio University", country: "Japan")
        #expect(try await answers(harness) == ["fetched": 1, "database": 1])
        let before = try #require(try await harness.cached("Japan")).fetchedAt
        // Whole seconds: the renewed copy's date must be able to differ.
        try await waitUntil(3, "the clock reaches the next second") { Date().rfc3339 != before.rfc3339 }
        let list = try await harness.list("Japan")
        #expect(harness.upstream.notModifiedCount == 1, "asked with the list's validator, answered 304")
        #expect(list.freshness.source == .upstream && !list.items.isEmpty)
        #expect(try #require(try await harness.cached("Japan")).fetchedAt > before)
        #expect(try await answers(harness) == ["fetched": 2, "database": 1])
        try await harness.stop()
    }

    private func answers(_ harness: UniversityHarness) async throws -> [String: Int] {
        let report = try await harness.client.call(RPCMethods.universitiesMetrics, .init(), timeout: .seconds(10))
        return try Exposition(report.exposition).cacheAnswers
    }
}
