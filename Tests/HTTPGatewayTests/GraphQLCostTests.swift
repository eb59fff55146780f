import Foundation
@testable import HTTPGateway
import Messaging
import RnmAPI
import TestSupport
import Testing

/// What a GraphQL query costs: Gateway calls that grow with depth, not breadth; limits that
/// stop a hostile query before it does any work; and every answer from the caches, offline too.
@Suite("HTTPGateway: GraphQL cost, limits and offline", .serialized, .cleansUp)
struct GraphQLCostTests {
    static let publicURL = "http://rnm.test"
    /// A page of 20 characters, each with its episodes and their characters, its location and
    /// its residents (the bench's deep query).
    static let deepQuery = """
        { characters(page: 1) { results { name episode { name characters { name } } \
        location { name residents { name } } } } }
        """

    @Test("no N+1: a page of 20 characters with their episodes' names is 2 Gateway calls; the deep query 5")
    func batching() async throws {
        try await RnmSystem.with { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: Self.publicURL)
            let page = try await http.graphQL("{ characters(page: 1) { results { name episode { name } } } }")
            #expect(page.errors.isEmpty, "\(page.messages)")
            let results = path(page.data, "characters", "results") as? [[String: Any]] ?? []
            #expect(results.count == 20)
            #expect(results.allSatisfy { ($0["episode"] as? [Any])?.isEmpty == false })
            // The page, then every episode of the 20 characters in one getMany.
            #expect(page.calls == 2, "\(page.rnm ?? [:])")
            let deep = try await http.graphQL(Self.deepQuery)
            #expect(deep.errors.isEmpty, "\(deep.messages)")
            // The page; their episodes; the episodes' characters; their locations; the residents
            // (each level's ids in parts of 100).
            let records = deep.rnm?["records"] as? Int ?? 0
            #expect(records > 100)
            #expect((deep.calls ?? .max) <= 3 + (records + 99) / 100, "\(deep.rnm ?? [:])")
            #expect(deep.response.header("Cache-Status") != nil)
            #expect(deep.rnm?["fetchedAt"] is String && deep.rnm?["stale"] as? Bool == false)
            try await http.server.stop()
            // One call at a time for a query (its fair share of the link at its smallest): the
            // same answer, the loads of a level waiting their turn, never each other.
            let narrow = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: Self.publicURL
            ) { $0.graphQL.maxCallsInFlight = 1 }
            let serial = try await narrow.graphQL(Self.deepQuery)
            #expect(serial.errors.isEmpty, "\(serial.messages)")
            #expect((serial.data as NSDictionary?) == (deep.data as NSDictionary?))
            try await narrow.server.stop()
        }
    }

    @Test(
        """
        limits: 50 levels deep, 60 aliases, an oversized body: a clear error, nothing asked of the upstream; a \
        fan-out past the record budget: a clear error, no level loaded that cannot fit; a query of exactly the budget \
        answered
        """
    )
    func limits() async throws {
        try await RnmSystem.with { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: Self.publicURL
            ) {
                $0.graphQL.maxRecords = 300
                $0.graphQL.maxDepth = 12
                $0.graphQL.maxQueryBytes = 64 * 1024
            }
            system.characterUpstream.resetRequests()
            let deep =
                "{ character(id: 1) {" + String(repeating: " location { residents {", count: 25) + " name"
                + String(repeating: " } }", count: 25) + " } }"
            let tooDeep = try await http.graphQL(deep)
            #expect(tooDeep.messages == ["the query nests deeper than 12 levels (RNM_GRAPHQL_MAX_DEPTH)"])
            #expect(tooDeep.data == nil && tooDeep.rnm == nil)
            // Ten thousand brackets never reach the parser, behind a comment too (one ends at a
            // carriage return as at a line feed).
            for prefix in ["", "#\r", "# note\r\n"] {
                let brackets = try await http.graphQL(prefix + "{ a(b: " + String(repeating: "[", count: 10_000))
                #expect(brackets.messages.first?.contains("RNM_GRAPHQL_MAX_DEPTH") == true, "\(brackets.messages)")
            }
            // 60 aliases: under the token limit (1,000 aliases are refused by their tokens, unparsed).
            let aliases = "{ " + (1...60).map { "a\($0): character(id: 1) { name }" }.joined(separator: " ") + " }"
            let tooMany = try await http.graphQL(aliases)
            #expect(tooMany.messages == ["the query holds more than 50 aliases (RNM_GRAPHQL_MAX_ALIASES)"])
            #expect(system.characterUpstream.requestCount == 0, "nothing was asked of anyone")
            // characters → episode → characters → episode …: stopped at the budget; the answer
            // holds no more than it, and no level past the one it ran out in is loaded.
            let fanOut = try await http.graphQL(
                "{ characters { results { episode { characters { episode { characters { name } } } } } } }")
            #expect(fanOut.messages.contains("the query resolves more than 300 records (RNM_GRAPHQL_MAX_RECORDS)"))
            #expect((fanOut.rnm?["records"] as? Int ?? .max) <= 300)
            // The work it did, counted where it is done (the caches were cold): the page and its
            // characters' episodes; their characters, a level of more distinct records than the
            // budget has room for, are refused before they are asked for (before issue 39's fix
            // that level was loaded whole: 544 records asked of the upstream for 300).
            let episodes = Set(Self.page1.flatMap { Self.linkedIDs($0["episode"]) })
            let asked = Self.recordsAsked(system.characterUpstream.requests)
            #expect(asked == 20 + episodes.count && asked <= 300, "records asked: \(asked)")
            #expect(fanOut.calls == 2, "the page, the episodes: \(fanOut.rnm ?? [:])")
            // With the default budget, a fan-out whose answer would repeat records millions of
            // times (few records, fetched once each) is refused before it is built (the depth
            // allowed for it: by default, as the API's server, it is too deep already).
            let unbounded = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: Self.publicURL
            ) { $0.graphQL.maxDepth = 7 }
            let explosive = try await unbounded.graphQL(
                "{ characters { results { episode { characters { episode { characters { name } } } } } } }")
            #expect(explosive.messages == ["the query resolves more than 10000 records (RNM_GRAPHQL_MAX_RECORDS)"])
            #expect(explosive.data == nil)
            // Aliased copies of a nested field are counted again: the answer holds each copy.
            let once = try await unbounded.graphQL("{ characters { results { episode { id } } } }")
            let twice = try await unbounded.graphQL(
                "{ characters { results { a: episode { id } b: episode { id } } } }")
            let onceRecords = try #require(once.rnm?["records"] as? Int)
            #expect(twice.rnm?["records"] as? Int == 2 * onceRecords - 20, "\(twice.rnm ?? [:])")
            try await unbounded.server.stop()
            let tight = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: Self.publicURL
            ) { $0.graphQL.maxRecords = onceRecords + 5 }
            let copies = try await tight.graphQL("{ characters { results { a: episode { id } b: episode { id } } } }")
            #expect(
                copies.messages == ["the query resolves more than \(onceRecords + 5) records (RNM_GRAPHQL_MAX_RECORDS)"]
            )
            try await tight.server.stop()
            // A query whose answer holds exactly the budget is answered: a level's load counts
            // each record once (the parent's own ids once), and a character's origin and
            // location, one load between them, are not held against a query asking for one.
            for exact in [
                "{ location(id: 20) { residents { id } } }", "{ character(id: 71) { origin { residents { id } } } }",
            ] {
                let records = try #require(try await http.graphQL(exact).rnm?["records"] as? Int)
                let budget = try await RunningHTTPGateway.start(
                    gatewaySocket: system.gatewaySocket, publicURL: Self.publicURL
                ) { $0.graphQL.maxRecords = records }
                let answer = try await budget.graphQL(exact)
                #expect(
                    answer.errors.isEmpty && answer.rnm?["records"] as? Int == records, "\(exact): \(answer.messages)")
                try await budget.server.stop()
            }
            system.characterUpstream.resetRequests()
            let huge = try await http.get(
                "/graphql", method: "POST", headers: [("Content-Type", "application/json")],
                body: Array(#"{"query":"{ location(id: 7) { name } }","pad":""#.utf8)
                    + Array(repeating: 0x61, count: 70_000)
                    + Array(#""}"#.utf8))
            #expect(huge.status == 413 && huge.text.contains("RNM_GRAPHQL_MAX_QUERY_BYTES"), "\(huge.text)")
            #expect(system.characterUpstream.requestCount == 0, "location 7 (never read before) was not asked for")
            // The front still answers everyone.
            let after = try await http.graphQL("{ character(id: 2) { name } }")
            #expect(path(after.data, "character", "name") as? String == "Morty Smith")
            try await http.server.stop()
        }
    }

    /// Page 1 of the characters.
    static var page1: [[String: Any]] { Array(RickAndMortyFixtures.records("character").prefix(20)) }

    /// The ids at the end of a record's links (`…/episode/12`).
    static func linkedIDs(_ links: Any?) -> [Int] {
        (links as? [String] ?? []).compactMap { $0.split(separator: "/").last.flatMap { Int($0) } }
    }

    /// Records the upstream was asked for: 20 a list page, one an id, each id of a list of ids.
    static func recordsAsked(_ requests: [UpstreamRequest]) -> Int {
        requests.reduce(0) { total, request in
            let parts = request.path.split(separator: "/")
            guard parts.count == 3 else { return total + 20 }
            return total + parts[2].split(separator: ",").count
        }
    }

    @Test("after characters.sync, the deep query answers with the upstream gone, saying it is stale")
    func offline() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "0"]) { system in
            let client = try await system.connect()
            _ = try await client.call(RPCMethods.charactersSync, NoParams(), timeout: .seconds(60))
            await client.close()
            // (Without the micro-cache: each answer below comes from the services.)
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: Self.publicURL
            ) { $0.cacheTTL = .zero }
            let online = try await http.graphQL(Self.deepQuery)
            system.characterUpstream.fault = .down
            let offline = try await http.graphQL(Self.deepQuery)
            #expect(offline.errors.isEmpty, "\(offline.messages)")
            #expect(offline.data.map { jsonText($0) } == online.data.map { jsonText($0) })
            #expect(offline.rnm?["stale"] as? Bool == true)
            #expect(offline.rnm?["upstreamError"] is String)
            #expect(offline.response.header("Cache-Status")?.contains("fwd=stale") == true)
            system.characterUpstream.fault = nil
            try await http.server.stop()
        }
    }

    @Test("the upstream down: what is cached answers, what is not is an error naming it, never a lost answer")
    func upstreamDown() async throws {
        try await RnmSystem.with { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: Self.publicURL
            ) { $0.cacheTTL = .zero }
            _ = try await http.graphQL("{ character(id: 1) { name } episode(id: 2) { name } }")
            system.characterUpstream.fault = .down
            // The character and episode 2 are cached, its other episodes are not: what is cached
            // is answered, the rest named in an error.
            let nested = try await http.graphQL("{ character(id: 1) { name episode { id } } }")
            #expect(path(nested.data, "character", "name") as? String == "Rick Sanchez")
            #expect((path(nested.data, "character", "episode") as? [[String: String]]) == [["id": "2"]])
            #expect(
                nested.messages.first?.hasPrefix("the upstream API is unavailable and episode 1,3,4,") == true,
                "\(nested.messages)")
            #expect(nested.rnm?["stale"] as? Bool == true)
            // Nothing cached at the top: null and the error at its path.
            let top = try await http.graphQL("{ character(id: 2) { name } }")
            #expect(path(top.data, "character") is NSNull)
            #expect(top.messages == ["the upstream API is unavailable and rnm has nothing cached for this request"])
            #expect(path(top.errors.first, "path", 0) as? String == "character", "\(top.response.text)")
            system.characterUpstream.fault = nil
            try await http.server.stop()
        }
    }

    private func jsonText(_ value: Any) -> String {
        (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])).map {
            String(decoding: $0, as: UTF8.self)
        } ?? ""
    }
}
