import Foundation
@testable import HTTPGateway
import Messaging
import RnmAPI
import TestSupport
import Testing

/// Issue 40: the micro-cache keeps an answer past `RNM_HTTP_CACHE_MS` while its service says
/// its data is unchanged (`characters.changes`), and a change shows within `RNM_HTTP_CACHE_MS`.
@Suite("HTTPGateway: kept answers and the services' data", .serialized, .cleansUp)
struct MicroCacheVersionTests {
    static let page = "/api/character?page=1"

    /// The micro-cache's hits so far (`rnm_http_cache_hits_total`).
    static func hits(_ http: RunningHTTPGateway) async throws -> Double {
        try Exposition(try await http.get("/metrics").text).value("rnm_http_cache_hits_total", ["process": "http"])
    }

    @Test("characters.changes: the same after a refresh the upstream answers 304, another after one that changed")
    func versionMoves() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let client = try await system.connect()
            _ = try await client.call(RPCMethods.charactersList, CharacterListParams(page: 1))
            let first = try await client.call(RPCMethods.charactersChanges, NoParams())
            #expect(first.maxAge == 600)
            _ = try await client.call(RPCMethods.charactersRefresh, CharacterListParams(page: 1))
            #expect(system.characterUpstream.notModifiedCount > 0)
            #expect(try await client.call(RPCMethods.charactersChanges, NoParams()) == first)
            Self.rename(in: system)
            _ = try await client.call(RPCMethods.charactersRefresh, CharacterListParams(page: 1))
            let second = try await client.call(RPCMethods.charactersChanges, NoParams())
            #expect(second.version != first.version && second.maxAge == 600)
            let universities = try await client.call(RPCMethods.universitiesChanges, NoParams())
            #expect(universities.maxAge == 0 && !universities.version.isEmpty)
        }
    }

    /// The first character page, as REST and as GraphQL read it.
    enum Read: String, CaseIterable, CustomTestStringConvertible {
        case rest, graphQL

        var testDescription: String { rawValue }

        func send(to http: RunningHTTPGateway) async throws -> HTTPProbeResponse {
            switch self {
            case .rest: try await http.get(MicroCacheVersionTests.page)
            case .graphQL: try await http.graphQL("{ characters(page: 1) { results { id name } } }").response
            }
        }
    }

    @Test(
        "a kept answer is repeated past RNM_HTTP_CACHE_MS while the data is unchanged; a change shows soon after",
        arguments: Read.allCases)
    func keptUntilChanged(_ read: Read) async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let ttl = Duration.milliseconds(400)
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: "http://rnm.test"
            ) { $0.cacheTTL = ttl }
            _ = try await read.send(to: http)  // fetched: not kept
            // A hit more than a TTL after the answer was kept. A repeat that came back as a miss
            // (the front's last confirmation too old on a loaded machine) keeps it again: try
            // again, a few times.
            var repeatedPastTTL = false
            for _ in 0..<5 where !repeatedPastTTL {
                let kept = try await read.send(to: http)
                #expect(kept.header("cache-status") == "rnm; hit")
                try await Task.sleep(for: ttl * 3)
                let before = try await Self.hits(http)
                let again = try await read.send(to: http)
                #expect(again.status == 200 && again.body == kept.body)
                repeatedPastTTL = try await Self.hits(http) > before
            }
            #expect(repeatedPastTTL, "never repeated past RNM_HTTP_CACHE_MS")
            // The upstream's page changes and a refresh through the Gateway (rnmctl's way) stores it.
            Self.rename(in: system)
            let client = try await system.connect()
            _ = try await client.call(RPCMethods.charactersRefresh, CharacterListParams(page: 1))
            let changed = ContinuousClock.now
            var seen = false
            while !seen, ContinuousClock.now - changed < .seconds(10) {
                seen = try await read.send(to: http).text.contains(Self.renamed)
                if !seen { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(seen, "the change never showed")
            try await http.server.stop()
        }
    }

    static let renamed = "Rick Sanchez (renamed)"

    /// The upstream's first character page names its first character ``renamed`` from now on.
    static func rename(in system: RnmSystem) {
        let plain = RickAndMortyFixtures()
        system.characterFixtures.override = { request in
            let path = request.path.lowercased()
            guard path.hasSuffix("/character") || path.hasSuffix("/character/"), (request.query["page"] ?? "1") == "1"
            else { return nil }
            var answer = plain.route(request)
            let text = String(decoding: answer.body, as: UTF8.self)
            answer.body = Array(text.replacingOccurrences(of: "Rick Sanchez", with: renamed).utf8)
            return answer
        }
    }
}
