import Foundation
import GraphQL
@testable import HTTPGateway
import NIOCore
import RnmAPI
import TestSupport
import Testing

/// The answer's bytes are written straight from the executor's `Map` into the buffer that is
/// sent: byte for byte what `GraphQLJSONEncoder` wrote before (key order, escaping, numbers,
/// left-out parts), so no client sees a change.
@Suite("HTTPGateway: GraphQL answer bytes", .serialized, .cleansUp)
struct GraphQLResponseBodyTests {
    /// The answer as it was written until session 15: each part through its encoder, as text.
    static func reference(errors: [GraphQLError], data: Map?, report: QueryContext.Report?) -> String {
        var parts: [String] = []
        let encoder = GraphQLJSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        if !errors.isEmpty, let text = try? encoder.encode(errors.map(ResponseError.init)) {
            parts.append(#""errors":"# + String(decoding: text, as: UTF8.self))
        }
        if let data, let text = try? encoder.encode(data) {
            parts.append(#""data":"# + String(decoding: text, as: UTF8.self))
        }
        let extensions = JSONEncoder()
        extensions.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        if let report, let text = try? extensions.encode(report) {
            parts.append(#""extensions":{"rnm":"# + String(decoding: text, as: UTF8.self) + "}")
        }
        return "{" + parts.joined(separator: ",") + "}"
    }

    static func written(errors: [GraphQLError] = [], data: Map?, report: QueryContext.Report? = nil) -> String {
        String(buffer: GraphQLResponseBody.body(errors: errors, data: data, report: report))
    }

    /// Every byte a string may hold that JSON escapes, and some it does not.
    static let awkward =
        "quote \" backslash \\ slash / http://a.b/c tab \t nl \n cr \r bs \u{08} ff \u{0C} nul \u{00} "
        + "us \u{1F} del \u{7F} é Rick’s 🛸 \u{2028}"

    static let record: Map = .dictionary([
        "id": .string("1"), "name": .string("Rick Sanchez"), "status": .string("Alive"), "type": .string(""),
        "skipped": .undefined, "image": .string("https://rickandmortyapi.com/api/character/avatar/1.jpeg"),
        "episode": .array([.dictionary(["name": .string("Pilot")]), .dictionary(["name": .string(awkward)])]),
        "origin": .null, "alive": .bool(true), "dead": .bool(false),
    ])

    static let numbers: [Map] =
        [0, 1, -1, 20, 826, 493, 1.5, -0.25, 1e16, 1e-7, 123_456_789_012, 3.0]
        + [.number(Number(Int.max)), .number(Number(Float(0.1))), .number(Number(true))]

    @Test("records, strings, numbers, nesting and left-out values: the same bytes as GraphQLJSONEncoder")
    func sameBytes() {
        let maps: [Map] = [
            .null, .dictionary([:]), .array([]), .string(Self.awkward), .dictionary(["a": .undefined]),
            .dictionary(["charactersByIds": .array(Array(repeating: Self.record, count: 3))]),
            .dictionary(["numbers": .array(Self.numbers)]),
            .dictionary([
                "characters": .dictionary([
                    "info": .dictionary(["count": 826, "pages": 42, "next": 2, "prev": .null]),
                    "results": .array([Self.record, .null]),
                ])
            ]),
        ]
        for map in maps {
            #expect(Self.written(data: map) == Self.reference(errors: [], data: map, report: nil))
        }
    }

    @Test("errors, data and extensions together, and a part that cannot be encoded left out")
    func parts() {
        let errors = [
            GraphQLError(message: "the query resolves more than 10000 records (RNM_GRAPHQL_MAX_RECORDS)"),
            GraphQLError(message: Self.awkward, extensions: ["code": "BUSY"]),
        ]
        let report = QueryContext.Report(
            freshness: Freshness(source: .cache, stale: true, fetchedAt: "2026-11-26T00:00:00Z"), calls: 2,
            records: 40)
        let data: Map = .dictionary(["character": Self.record])
        let unencodable: [Map] = [
            .undefined, .array([.undefined]), .dictionary(["n": .number(Number(Double.nan))]),
            .dictionary(["n": .array([.number(Number(Double.infinity))])]),
        ]
        let cases: [([GraphQLError], Map?, QueryContext.Report?)] =
            [(errors, data, report), (errors, nil, nil), ([], nil, report), ([], nil, nil), (errors, .null, report)]
            + unencodable.flatMap { [([], $0, nil), (errors, $0, report), ([], $0, report)] }
        for (errors, data, report) in cases {
            let written = Self.written(errors: errors, data: data, report: report)
            #expect(written == Self.reference(errors: errors, data: data, report: report))
            #expect((try? JSONSerialization.jsonObject(with: Data(written.utf8))) != nil)
        }
    }

    @Test("a query's answer through the endpoint, byte for byte: fields in the query's order, then extensions")
    func throughTheEndpoint() async throws {
        try await RnmSystem.with { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: "http://rnm.test")
            let answer = try await http.graphQL(
                """
                { b: charactersByIds(ids: [2, 1]) { name id image origin { name } }
                  character(id: 1) { type status location { name type } } nothing: character(id: 9999999) { id }
                  characters(page: 1) { info { count pages next prev } } }
                """)
            let body = String(decoding: answer.response.body, as: UTF8.self)
            #expect(body.hasPrefix(Self.expectedData + #","extensions":{"rnm":{"calls":"#), "\(body)")
            // Freshness, then calls and records, in sorted keys (the time and source vary by run).
            #expect(body.contains(#","fetchedAt":"#) && body.contains(#","records":27,"source":"#))
            #expect(body.hasSuffix(#","stale":false}}}"#))
        }
    }

    /// As the endpoint wrote it before session 15 (`GraphQLJSONEncoder`), for the fixture's data.
    static let expectedData =
        #"{"data":{"b":[{"name":"Rick Sanchez","id":"1","image":"http://rnm.test/api/character/avatar/1.jpeg","#
        + #""origin":{"name":"Earth (C-137)"}},{"name":"Morty Smith","id":"2","#
        + #""image":"http://rnm.test/api/character/avatar/2.jpeg","origin":{"name":"Earth (C-137)"}}],"#
        + #""character":{"type":"","status":"Alive","location":{"name":"Earth (Replacement Dimension)","#
        + #""type":"Planet"}},"nothing":null,"characters":{"info":{"count":493,"pages":25,"next":2,"prev":null}}}"#
}
