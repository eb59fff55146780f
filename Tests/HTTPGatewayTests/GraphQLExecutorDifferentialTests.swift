import Foundation
@testable import HTTPGateway
import TestSupport
import Testing

/// rnm's GraphQL executor (``RecordExecutor``) held to the GraphQL library's: the same queries
/// sent to two HTTP fronts on one Gateway, one running each, answer the same `data` byte for
/// byte, the same errors (located, with their paths) and the same records counted.
@Suite("HTTPGateway: GraphQL executor against the library's", .serialized, .cleansUp)
struct GraphQLExecutorDifferentialTests {
    struct Case: CustomStringConvertible, @unchecked Sendable {  // immutable; its JSON is only read
        let query: String
        var variables: [String: Any]? = nil
        var operationName: String? = nil
        var description: String { query + (variables.map { " \($0)" } ?? "") }
    }

    static let cases: [Case] = [
        // Every field of every type, at the root and below.
        Case(
            query: """
                { character(id: 1) { id name status species type gender image created
                  origin { id name type dimension created } location { id name residents { id } }
                  episode { id name air_date episode created } } }
                """),
        Case(query: #"{ character(id: "2") { name __typename } }"#),
        Case(query: "{ character(id: 9999999) { id } }"),
        Case(query: #"{ character(id: "abc") { id } }"#),
        Case(query: #"{ character(id: "1,2") { id } }"#),
        Case(query: #"{ a: character(id: "x") { id } b: character(id: 3) { id } c: character(id: "[1") { id } }"#),
        Case(query: "{ charactersByIds(ids: [2, 1, 2]) { name } }"),
        Case(query: "{ charactersByIds(ids: 3) { name } }"),
        Case(query: "{ charactersByIds(ids: []) { id } }"),
        Case(query: #"{ charactersByIds(ids: ["x", 1]) { id } }"#),
        Case(
            query: """
                { charactersByIds(ids: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 27]) {
                  origin { id name type dimension created residents { id } } location { name dimension } } }
                """),
        Case(
            query: """
                { characters(page: 2, filter: { name: "rick", status: "alive" }) {
                  info { count pages next prev } results { name } } }
                """),
        Case(query: "{ characters(page: 9999) { info { count next prev } results { id } } }"),
        Case(query: #"{ characters(filter: { name: "zzzz" }) { info { count pages } results { id } } }"#),
        Case(query: #"{ characters(page: 0, filter: { gender: " Female ", type: "" }) { info { prev next } } }"#),
        Case(query: "{ characters(page: -3) { info { prev next } results { id } } }"),
        Case(query: "{ locations { info { count } results { name type residents { name episode { episode } } } } }"),
        Case(query: #"{ locationsByIds(ids: [1, 3, 20]) { name residents { name location { name } } } }"#),
        Case(query: #"{ location(id: 3) { id name dimension residents { id status } } }"#),
        Case(
            query: """
                { episodes(filter: { episode: "S01" }) { results { id name
                  characters { name origin { name } location { name } } } } }
                """),
        Case(query: #"{ episode(id: 28) { id name air_date characters { id episode { id } } } }"#),
        Case(query: "{ episodesByIds(ids: [1, 2]) { episode characters { name } } }"),
        // Aliases, and fields merged under one key.
        Case(
            query: """
                { a: character(id: 1) { name } b: character(id: 2) { name id }
                  a: character(id: 1) { status origin { name } } b: character(id: 2) { origin { id } } }
                """),
        Case(query: "{ character(id: 1) { n: name name n: name e: episode { id } episode { name } } }"),
        Case(query: #"{ a: character(id: "abc") { id } ... { a: character(id: "abc") { name } } }"#),
        // Fragments: named, nested, inline with and without a type, a small diamond.
        Case(
            query: """
                { ...Q } fragment Q on Query { __typename character(id: 1) { ...C } }
                fragment C on Character { name ... on Character { status } ... { gender } ...D }
                fragment D on Character { id name origin { ...L } }
                fragment L on Location { name }
                """),
        Case(query: HTTPStallTests.diamond(levels: 3)),
        // Directives, literal and from variables.
        Case(
            query: "{ character(id: 1) { name @skip(if: true) status @include(if: false) species @include(if: true) } }"
        ),
        Case(
            query: """
                query($s: Boolean!, $i: Boolean = true) { character(id: 1) {
                  name @skip(if: $s) id @include(if: $i) ...F @skip(if: $s) ...F } }
                fragment F on Character { gender }
                """, variables: ["s": true]),
        // Variables of each type, given, absent and defaulted.
        Case(query: "query Q($id: ID!) { character(id: $id) { name } }", variables: ["id": 3]),
        Case(query: "query Q($id: ID!) { character(id: $id) { name } }", variables: ["id": "4"]),
        Case(query: "query($ids: [ID!]!) { charactersByIds(ids: $ids) { id } }", variables: ["ids": [1, "2"]]),
        Case(query: "query($ids: [ID!]!) { charactersByIds(ids: $ids) { id } }", variables: ["ids": 5]),
        Case(
            query:
                """
                query($p: Int, $f: FilterCharacter) { characters(page: $p, filter: $f) { info { count } \
                results { name } } }
                """,
            variables: ["p": 2, "f": ["species": "Human", "name": NSNull()]]),
        Case(query: "query($p: Int, $f: FilterCharacter) { characters(page: $p, filter: $f) { info { next } } }"),
        Case(query: "query($p: Int = 3) { characters(page: $p) { info { prev } } }"),
        Case(
            query: #"query($n: String) { characters(filter: { name: $n, status: "Dead" }) { info { count } } }"#,
            variables: ["n": "smith"]),
        Case(query: #"query($n: String) { characters(filter: { name: $n, status: "Dead" }) { info { count } } }"#),
        // Which operation.
        Case(
            query: "query A { character(id: 1) { name } } query B { character(id: 2) { name } }",
            operationName: "B"),
        // Values the library refuses when the field runs (`getArgumentValues`), failing the whole
        // query: a variable's null for a non-null argument, an `Int` literal past 32 bits.
        Case(query: "query($id: ID = 1) { character(id: $id) { id } }", variables: ["id": NSNull()]),
        Case(query: "query($ids: [ID!] = [1]) { charactersByIds(ids: $ids) { id } }", variables: ["ids": NSNull()]),
        Case(query: "query($a: ID = 1) { charactersByIds(ids: [2, $a]) { id } }", variables: ["a": NSNull()]),
        Case(query: "{ characters(page: 2147483648) { info { count } } }"),
        Case(query: "{ characters(page: -2147483649) { info { prev } } }"),
        Case(query: "{ characters(page: 2147483647) { info { prev } } }"),
        Case(query: "{ character(id: 99999999999) { id } }"),
        // A spread's directives are read before it is known to be a repeat, as the library reads them.
        Case(
            query: """
                query($s: Boolean = true) { ...F ...F @skip(if: $s) }
                fragment F on Query { character(id: 1) { id } }
                """, variables: ["s": NSNull()]),
        // The library's own: introspection, and the errors it words.
        Case(query: "{ __typename a: __typename }"),
        Case(query: "{ __schema { queryType { name } } character(id: 1) { name } }"),
        Case(query: "query($id: ID!) { character(id: $id) { id } }"),
        Case(query: "query($id: ID!) { character(id: $id) { id } }", variables: ["id": 1.5]),
        Case(query: "query($p: Int) { characters(page: $p) { info { count } } }", variables: ["p": "two"]),
        Case(query: "query A { character(id: 1) { name } } query B { character(id: 2) { name } }"),
    ]

    @Test("every case: the same data byte for byte, the same errors and records")
    func sameAnswers() async throws {
        try await Self.withBothFronts { ours, library in
            var answeredWithData = 0
            for item in Self.cases {
                if try await Self.compare(item, ours: ours, library: library) { answeredWithData += 1 }
            }
            // The cases are answers, not refusals.
            #expect(answeredWithData >= Self.cases.count - 11, "\(answeredWithData) of \(Self.cases.count)")
        }
    }

    @Test("150 queries made from a seed: the same answers, refusals and errors alike")
    func generatedQueries() async throws {
        var generator = GraphQLQueryGenerator(seed: 0x524E_4D47_5151)
        let items = (0..<150).map { _ in generator.next() }
        try await Self.withBothFronts(maxRecords: 2000) { ours, library in
            var answeredWithData = 0
            for item in items {
                if try await Self.compare(item, ours: ours, library: library) { answeredWithData += 1 }
            }
            // Most are answers: the generator asks what the schema has.
            #expect(answeredWithData >= items.count / 2, "\(answeredWithData) of \(items.count)")
        }
    }

    /// Two HTTP fronts on one Gateway: rnm's executor, and the library's.
    private static func withBothFronts(
        maxRecords: Int? = nil, _ body: (RunningHTTPGateway, RunningHTTPGateway) async throws -> Void
    ) async throws {
        try await RnmSystem.with(settings: HTTPStallTests.cached) { system in
            let ours = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: GraphQLTests.publicURL
            ) { $0.graphQL.maxRecords = maxRecords ?? $0.graphQL.maxRecords }
            let library = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: GraphQLTests.publicURL
            ) {
                $0.graphQLLibraryExecutor = true
                $0.graphQL.maxRecords = maxRecords ?? $0.graphQL.maxRecords
            }
            try await body(ours, library)
            try await ours.server.stop()
            try await library.server.stop()
        }
    }

    /// Sends `item` to both and expects the same answer; whether it answered data. `records`
    /// is compared when there is data: a query that fails whole (past the record
    /// budget, an argument the library refuses as one root field runs) is answered its error
    /// alone, and what was read by then depends on which root field ran first.
    private static func compare(
        _ item: Case, ours: RunningHTTPGateway, library: RunningHTTPGateway
    ) async throws -> Bool {
        // The library first: the records it reads are then cached for both (calls alike).
        let expected = try await library.graphQL(
            item.query, variables: item.variables, operationName: item.operationName)
        let got = try await ours.graphQL(item.query, variables: item.variables, operationName: item.operationName)
        #expect(got.status == expected.status, "\(item)")
        #expect(data(got) == data(expected), "\(item)")
        #expect(errors(got) == errors(expected), "\(item)")
        // `calls` is not compared: a query's fields share the fetches of the records they both
        // want (QueryContext.records), and which one fetches depends on which asks first (the
        // library runs every field at once, rnm's executor a root field's in order).
        // GraphQLCostTests hold the calls of a query to its depth.
        if expected.data != nil {
            #expect(got.rnm?["records"] as? Int == expected.rnm?["records"] as? Int, "\(item)")
        }
        return got.data != nil
    }

    /// The bytes of `data` as sent (between `"data":` and `,"extensions"` or the end).
    static func data(_ answer: GraphQLAnswer) -> String? {
        let body = String(decoding: answer.response.body, as: UTF8.self)
        guard let start = body.range(of: #""data":"#) else { return nil }
        let end = body.range(of: #","extensions":{"rnm":"#, range: start.upperBound..<body.endIndex)?.lowerBound
        return String(body[start.upperBound..<(end ?? body.index(before: body.endIndex))])
    }

    /// The errors, each as canonical JSON, in order (the library's root fields finish in any order).
    static func errors(_ answer: GraphQLAnswer) -> [String] {
        answer.errors.map { error in
            let data = (try? JSONSerialization.data(withJSONObject: error, options: [.sortedKeys])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }.sorted()
    }
}
