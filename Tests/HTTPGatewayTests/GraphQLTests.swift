import Foundation
@testable import HTTPGateway
import TestSupport
import Testing

/// `/graphql`: the Rick and Morty API's GraphQL face, answered from rnm's caches. The queries and
/// expectations of the API's own suite (afuh/rick-and-morty-api `test/graphql-*.js`) first, then
/// each answer checked against rnm's REST answer for the same data.
@Suite("HTTPGateway: GraphQL", .serialized, .cleansUp)
struct GraphQLTests {
    static let publicURL = "http://rnm.test"

    @Test("the API's own GraphQL suite: records, null for an unknown id, lists by ids, pages, filters, info numbers")
    func publicSuite() async throws {
        try await RnmSystem.with { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: Self.publicURL)
            let rick = try await http.graphQL("{ character(id: 1) { name } }")
            #expect(rick.status == 200 && path(rick.data, "character", "name") as? String == "Rick Sanchez")
            #expect(
                path(try await http.graphQL(#"{ character(id: "2") { name } }"#).data, "character", "name")
                    as? String == "Morty Smith")
            let origin = try await http.graphQL("{ character(id: 1) { origin { name } episode { name } } }")
            #expect(path(origin.data, "character", "origin", "name") as? String == "Earth (C-137)")
            #expect(path(origin.data, "character", "episode", 0, "name") as? String == "Pilot")
            let residents = try await http.graphQL("{ character(id: 1) { name location { residents { name } } } }")
            let names = (path(residents.data, "character", "location", "residents") as? [[String: Any]] ?? [])
                .compactMap { $0["name"] as? String }
            #expect(names.contains("Rick Sanchez"))
            let all = try await http.graphQL(
                """
                { character(id: 1) { ...allProperties } }
                fragment allProperties on Character {
                  id name status species type gender origin { id } location { id } image episode { id } created
                }
                """)
            #expect(
                objectKeys(String(decoding: all.response.body, as: UTF8.self)).prefix(13).elementsEqual([
                    "data", "character", "id", "name", "status", "species", "type", "gender", "origin", "id",
                    "location", "id", "image",
                ]))
            #expect(path(all.data, "character", "id") as? String == "1")
            #expect(path(all.data, "character", "image") as? String == "http://rnm.test/api/character/avatar/1.jpeg")
            let unknown = try await http.graphQL("{ character(id: 9999999) { id } }")
            #expect(unknown.status == 200 && unknown.errors.isEmpty)
            #expect(path(unknown.data, "character") is NSNull)

            let byIDs = try await http.graphQL("{ charactersByIds(ids: [2, 1, 2]) { name } }")
            #expect(
                (path(byIDs.data, "charactersByIds") as? [[String: String]]) == [
                    ["name": "Rick Sanchez"], ["name": "Morty Smith"],
                ])
            #expect(
                (path(
                    try await http.graphQL("{ charactersByIds(ids: [1, 2, 3, 4, 5]) { id } }").data,
                    "charactersByIds") as? [Any])?.count == 5)
            #expect(
                (path(
                    try await http.graphQL("{ charactersByIds(ids: [9999999]) { id } }").data,
                    "charactersByIds") as? [Any])?.isEmpty == true)

            // Pages, filters and info, each against the REST answer for the same page.
            for (kind, field, filter, query) in [
                ("character", "characters", #"filter: { status: "Alive", name: "rick" }"#, "status=Alive&name=rick"),
                ("location", "locations", #"filter: { type: "Planet" }"#, "type=Planet"),
                ("episode", "episodes", #"filter: { episode: "S01" }"#, "episode=S01"),
            ] {
                let graph = try await http.graphQL(
                    "{ \(field)(page: 1, \(filter)) { info { count pages next prev } results { id name } } }")
                let rest = try #require(
                    jsonValue(try await http.get("/api/\(kind)/?page=1&\(query)").body) as? [String: Any])
                #expect(
                    path(graph.data, field, "info", "count") as? Int == path(rest, "info", "count") as? Int, "\(kind)")
                #expect(
                    path(graph.data, field, "info", "pages") as? Int == path(rest, "info", "pages") as? Int, "\(kind)")
                #expect(path(graph.data, field, "info", "prev") is NSNull, "\(kind)")
                let restNames = (rest["results"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                let graphNames = (path(graph.data, field, "results") as? [[String: Any]] ?? [])
                    .compactMap { $0["name"] as? String }
                #expect(!graphNames.isEmpty && graphNames == restNames, "\(kind)")
            }
            let second = try await http.graphQL("{ characters(page: 2) { info { next prev } } }")
            #expect(path(second.data, "characters", "info", "next") as? Int == 3)
            #expect(path(second.data, "characters", "info", "prev") as? Int == 1)
            for query in [
                "{ characters(page: 100000) { info { count next } results { id } } }",
                #"{ characters(filter: { name: "no such character" }) { info { count next } results { id } } }"#,
                #"{ characters(filter: { status: "sleeping" }) { info { count next } results { id } } }"#,
            ] {
                let empty = try await http.graphQL(query)
                #expect(empty.errors.isEmpty, "\(query): \(empty.messages)")
                #expect((path(empty.data, "characters", "results") as? [Any])?.isEmpty == true, "\(query)")
                #expect(path(empty.data, "characters", "info", "count") is NSNull, "\(query)")
            }
            let location = try await http.graphQL(
                "{ location(id: 1) { name residents { id } } locationsByIds(ids: [1, 2]) { id } }")
            #expect(path(location.data, "location", "name") as? String == "Earth (C-137)")
            #expect((path(location.data, "locationsByIds") as? [Any])?.count == 2)
            let episode = try await http.graphQL(
                "{ episode(id: 1) { name air_date episode characters { name } } episodesByIds(ids: [1, 2]) { id } }")
            #expect(path(episode.data, "episode", "episode") as? String == "S01E01")
            #expect(path(episode.data, "episode", "characters", 0, "name") as? String == "Rick Sanchez")
            #expect((path(episode.data, "episodesByIds") as? [Any])?.count == 2)
            try await http.server.stop()
        }
    }

    @Test(
        "GraphQL over HTTP: GET and POST, variables, operationName, errors with locations, media types, introspection")
    func overHTTP() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: Self.publicURL)
            let get = try await http.graphQLGet("{ character(id: 1) { name } }")
            #expect(get.status == 200 && path(get.data, "character", "name") as? String == "Rick Sanchez")
            #expect(get.response.header("Content-Type") == "application/json; charset=utf-8")
            let variables = try await http.graphQL(
                "query One($id: ID!) { character(id: $id) { name } } query Two { character(id: 2) { name } }",
                variables: ["id": 3], operationName: "One")
            #expect(path(variables.data, "character", "name") as? String == "Summer Smith")
            let getVariables = try await http.graphQLGet(
                "query One($id: ID!) { character(id: $id) { name } }",
                extra: "&variables=%7B%22id%22%3A2%7D&operationName=One")
            #expect(path(getVariables.data, "character", "name") as? String == "Morty Smith")

            let syntax = try await http.graphQL("{ character(id: 1) { name }")
            #expect(syntax.status == 200 && syntax.data == nil)
            #expect(syntax.messages.first?.contains("Syntax Error") == true, "\(syntax.messages)")
            #expect(syntax.errors.first?["locations"] != nil)
            let invalid = try await http.graphQL("{ character(id: 1) { nickname } }")
            #expect(invalid.messages.first?.contains("nickname") == true, "\(invalid.messages)")
            #expect(invalid.errors.first?["locations"] != nil)
            // A request error has no field, so no `path` (the spec; the API's server).
            #expect(syntax.errors.first?["path"] == nil && invalid.errors.first?["path"] == nil)
            // Under the GraphQL-over-HTTP media type, a request error is a 4xx.
            let modern = try await http.graphQL(
                "{ character(id: 1) { nickname } }", headers: [("Accept", "application/graphql-response+json")])
            #expect(modern.status == 400)
            #expect(modern.response.header("Content-Type") == "application/graphql-response+json; charset=utf-8")

            let notJSON = try await http.get(
                "/graphql", method: "POST", headers: [("Content-Type", "text/plain")], body: Array("{ a }".utf8))
            #expect(notJSON.status == 415 && notJSON.text.contains("application/json"))
            let noQuery = try await http.get(
                "/graphql", method: "POST", headers: [("Content-Type", "application/json")], body: Array("{}".utf8))
            #expect(noQuery.status == 400 && noQuery.text.contains("query"))
            let badID = try await http.graphQL(#"{ character(id: "abc") { name } }"#)
            #expect(badID.messages == ["Hey! you must provide an id"])
            #expect(try await http.get("/graphql", method: "PUT").status == 405)
            // A mutation over GET: refused as any method the path does not take is, with `Allow`.
            let mutation = try await http.graphQLGet("mutation { character(id: 1) { name } }")
            #expect(mutation.status == 405 && mutation.response.header("Allow") == "GET, HEAD, POST")
            #expect(mutation.messages == ["a mutation cannot be sent with GET"], "\(mutation.messages)")
            // A browser's preflight for a JSON POST with a client's own header: allowed as asked.
            let preflight = try await http.get(
                "/graphql", method: "OPTIONS",
                headers: [
                    ("Origin", "http://app.test"), ("Access-Control-Request-Method", "POST"),
                    ("Access-Control-Request-Headers", "content-type,apollo-require-preflight"),
                ])
            #expect(preflight.status == 204)
            #expect(preflight.header("Access-Control-Allow-Methods") == "GET, HEAD, POST")
            #expect(preflight.header("Access-Control-Allow-Headers") == "content-type,apollo-require-preflight")

            // The micro-cache: an answer read wholly fresh from the cache is repeated from memory
            // for RNM_HTTP_CACHE_MS, byte for byte; other variables are another answer.
            let query = "query Q($id: ID!) { character(id: $id) { name } }"
            _ = try await http.graphQL(query, variables: ["id": 4])  // fetched: not kept
            let first = try await http.graphQL(query, variables: ["id": 4])
            let again = try await http.graphQL(query, variables: ["id": 4])
            #expect(first.response.header("Cache-Status") == "rnm; hit")
            #expect(again.response.header("Cache-Status") == "rnm; hit" && again.response.body == first.response.body)
            let other = try await http.graphQL(query, variables: ["id": 5])
            #expect(path(other.data, "character", "name") as? String == "Jerry Smith")
            // A repeated GET answer is a REST hit's: its ETag gets a 304 with no body, and a
            // client that takes gzip gets the compressed copy (a page of names is over 1 KiB).
            let names = "{ characters(page: 2) { results { name status species } } }"
            _ = try await http.graphQLGet(names)
            let kept = try await http.graphQLGet(names)
            #expect(kept.response.header("Cache-Status") == "rnm; hit", "\(kept.response.headers)")
            let etag = try #require(kept.response.header("ETag"))
            let unchanged = try await http.graphQLGet(names, headers: [("If-None-Match", etag)])
            #expect(unchanged.response.status == 304 && unchanged.response.body.isEmpty)
            let gzipped = try await http.graphQLGet(names, headers: [("Accept-Encoding", "gzip")])
            #expect(gzipped.response.header("Content-Encoding") == "gzip", "\(gzipped.response.headers)")
            let vary = gzipped.response.header("Vary")?.split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            #expect(vary.map(Set.init) == ["Accept", "Accept-Encoding"], "\(vary ?? [])")
            // A POST is no conditional read: the whole answer, whatever If-None-Match says.
            let posted = try await http.graphQL(query, variables: ["id": 4], headers: [("If-None-Match", "*")])
            #expect(posted.response.status == 200 && posted.response.body == first.response.body)

            let schema = try await http.graphQL(
                #"{ __schema { queryType { name } } __type(name: "Character") { fields { name type { kind } } } }"#)
            let fields = path(schema.data, "__type", "fields") as? [[String: Any]] ?? []
            // (Introspection lists fields by name: the GraphQL library sorts them.)
            #expect(
                Set(fields.compactMap { $0["name"] as? String }) == [
                    "id", "name", "status", "species", "type", "gender", "origin", "location", "image", "episode",
                    "created",
                ])
            // The API's nullability: `episode: [Episode]!`, every other field nullable.
            #expect(
                fields.filter { path($0, "type", "kind") as? String == "NON_NULL" }.map { $0["name"] as? String }
                    == ["episode"])
            let filter = try await http.graphQL(#"{ __type(name: "FilterCharacter") { inputFields { name } } }"#)
            #expect(
                (path(filter.data, "__type", "inputFields") as? [[String: Any]])?.compactMap { $0["name"] as? String }
                    == ["gender", "name", "species", "status", "type"])
            try await http.server.stop()
        }
    }
}
