import Foundation
import Messaging
import RnmAPI
import TestSupport
import Testing

/// Issue 29, row 6: a mirror believes an upstream's totals only as far as they agree.
@Suite("CharacterService trusts the upstream's totals only so far", .cleansUp)
struct UpstreamTrustTests {
    /// The real data, but the characters' page 1 says `info` is `claim`.
    static func upstream(claiming claim: [String: Int]) async throws -> (TestUpstream, RickAndMortyFixtures) {
        let fixtures = RickAndMortyFixtures()
        let upstream = try await TestUpstream.start { request in
            var answer = fixtures.route(request)
            guard request.path == "/api/character", (request.query["page"] ?? "1") == "1",
                var page = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any],
                var info = page["info"] as? [String: Any]
            else { return answer }
            for (key, value) in claim { info[key] = value }
            page["info"] = info
            answer.body = Array(try! JSONSerialization.data(withJSONObject: page))
            return answer
        }
        return (upstream, fixtures)
    }

    @Test("a page claiming 5,000,000 pages for 826 characters: the sync fails at once, naming the claim")
    func pagesDisagreeWithCount() async throws {
        let harness = try await CharacterHarness.start(
            upstream: try await Self.upstream(claiming: ["pages": 5_000_000]))
        let error = await harness.error { try await harness.call(RPCMethods.charactersSync, NoParams()) }
        #expect(error?.code == .upstreamUnavailable)
        #expect(error?.message.contains("claims 5000000 pages") == true, "\(String(describing: error))")
        // Nothing past the first page was planned or asked for.
        #expect(harness.requests("character").count == 1)
        #expect(harness.requests("character").allSatisfy { ($0.query["page"] ?? "1") == "1" })
        try await harness.stop()
    }

    @Test("a page claiming 100,000,000 characters in consistent pages: refused by RNM_CHARACTERS_MAX_RECORDS")
    func countOverTheLimit() async throws {
        let claim = ["count": 100_000_000, "pages": 5_000_000]
        let harness = try await CharacterHarness.start(upstream: try await Self.upstream(claiming: claim))
        let error = await harness.error { try await harness.call(RPCMethods.charactersSync, NoParams()) }
        #expect(error?.message.contains("RNM_CHARACTERS_MAX_RECORDS (100000)") == true, "\(String(describing: error))")
        #expect(harness.requests("character").count == 1)
        // An ordinary list read says the same; once the upstream's index answers the probe,
        // characters are readable by id again.
        let list = await harness.error { try await harness.call(RPCMethods.charactersList, .init()) }
        #expect(list?.message.contains("RNM_CHARACTERS_MAX_RECORDS") == true)
        try await waitUntil(5, "character 1 read again") {
            (try? await harness.call(RPCMethods.charactersGet, .init(id: 1)).character.name) == "Rick Sanchez"
        }
        try await harness.stop()
    }

    @Test("the real totals are believed: page 1 as the API's server makes it")
    func realTotals() async throws {
        let harness = try await CharacterHarness.start()
        let page = try await harness.call(RPCMethods.charactersList, .init())
        #expect(page.count == fixture("character").count)
        #expect(page.pages == (fixture("character").count + 19) / 20)
        try await harness.stop()
    }
}
