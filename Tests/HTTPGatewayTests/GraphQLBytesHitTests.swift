import Foundation
@testable import HTTPGateway
import NIOCore
import NIOEmbedded
import Telemetry
import TestSupport
import Testing

/// Issue 40: a repeated GraphQL request answered from its bytes (``SentRequestKey``), as a REST
/// hit is: what a client sees must be what Hummingbird's path gives the same request.
@Suite("HTTPGateway: repeated GraphQL requests answered from their bytes", .serialized, .cleansUp)
struct GraphQLBytesHitTests {
    static let names = #"{"query":"{ characters(page: 2) { results { name status species } } }"}"#

    /// `body` POSTed to `/graphql` as a client sends it, with `extra` fields.
    static func post(_ body: String, _ extra: String = "") -> String {
        "POST /graphql HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n\(extra)"
            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    @Test(
        """
        a repeated POST /graphql from the bytes has Hummingbird's answer field for field (gzip, the GraphQL media \
        type, If-None-Match ignored); another body gets its own answer
        """
    )
    func sameAnswer() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.startCaching(gatewaySocket: system.gatewaySocket)
            let port = http.port
            let cases = [
                "", "Accept-Encoding: gzip\r\n", "Accept: application/graphql-response+json\r\n",
                "If-None-Match: *\r\n",
            ]
            // Read through once: the page is fetched (not kept), then kept.
            let warm = await onOwnThread { WireClient(port: port)?.exchange(Self.post(Self.names), answers: 1) }
            #expect(warm?.first?.status == 200)
            for extra in cases {
                // Hummingbird's side first (a `Connection` field other than keep-alive goes there):
                // it keeps the answer under the request as sent, which the bytes' side then finds.
                let routed = Self.post(Self.names, extra + "Connection: x-routed\r\n")
                let answers = try #require(
                    await onOwnThread {
                        WireClient(port: port)?.exchange(routed + routed + Self.post(Self.names, extra), answers: 3)
                    })
                try #require(answers.count == 3, "\(extra)")
                let (kept, raw) = (answers[1], answers[2])
                #expect(raw.status == 200 && raw.fields["cache-status"] == "rnm; hit", "\(extra) \(raw.fields)")
                #expect(raw.comparable == kept.comparable, "\(extra)")
                #expect(raw.body == kept.body && !raw.body.isEmpty, "\(extra)")
                #expect(raw.fields["vary"]?.hasPrefix("Accept") == true, "\(raw.fields)")
            }
            let gzip = try #require(
                await onOwnThread { WireClient(port: port)?.exchange(Self.post(Self.names, cases[1]), answers: 1) })
            #expect(
                gzip.first?.fields["content-encoding"] == "gzip"
                    && gzip.first?.fields["vary"]?.contains("Accept-Encoding") == true)
            // One byte more is another request: its own answer, not the kept one.
            let other = #"{"query":"{ characters(page: 3) { results { name status species } } }"}"#
            let answer = try #require(
                await onOwnThread { WireClient(port: port)?.exchange(Self.post(other), answers: 1).first })
            let page3 = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
            let results =
                ((page3?["data"] as? [String: Any])?["characters"] as? [String: Any])?["results"] as? [[String: Any]]
            #expect(
                results?.first?["name"] as? String == "Big Boobed Waitress",
                "\(String(decoding: answer.body, as: UTF8.self))")
            try await http.server.stop()
        }
    }

    @Test(
        """
        the bytes' handler answers a kept POST itself (nothing goes on to Hummingbird), its body sent with its head \
        or after it, in pieces; a body that differs (whole or in pieces) and one over RNM_GRAPHQL_MAX_QUERY_BYTES \
        go on as their bytes
        """
    )
    func answeredHere() throws {
        let cache = ResponseCache(ttl: .seconds(60), maxBytes: 1 << 20)
        let body = #"{"query":"{ character(id: 1) { name } }"}"#
        let kept = #"{"data":{"character":{"name":"Rick Sanchez"}}}"#
        cache.store(
            "answer", body: ByteBuffer(string: kept), contentType: "application/json; charset=utf-8", age: 0,
            route: "/graphql", variesByAccept: true)
        let sent = Array(body.utf8).withUnsafeBytes {
            SentRequestKey.of(.post, target: "/graphql", accept: nil, contentType: "application/json", body: $0)
        }
        cache.alias(try #require(sent), to: "answer")
        let handler = {
            MicroCacheHitHandler(
                cache: cache, metrics: HTTPMetrics(instruments: Instruments()), drain: nil, maxHeaderBytes: 8192,
                maxURLBytes: 8192, maxBodyBytes: 100, idleTimeout: nil,
                bodyTimeout: nil)
        }
        // The request whole, its body apart, its body in two pieces: each on a connection of its own.
        let request = Self.post(body)
        let split = request.index(request.endIndex, offsetBy: -body.utf8.count)
        let half = body.index(body.startIndex, offsetBy: 10)
        for reads in [
            [request], [String(request[..<split]), body],
            [String(request[..<split]), String(body[..<half]), String(body[half...])],
        ] {
            let channel = EmbeddedChannel(handler: handler())
            defer { _ = try? channel.finish() }
            for read in reads { try channel.writeInbound(ByteBuffer(string: read)) }
            #expect(try channel.readInbound(as: ByteBuffer.self) == nil, "passed on")
            let answer = try #require(try channel.readOutbound(as: ByteBuffer.self))
            let text = String(buffer: answer)
            #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n") && text.hasSuffix(kept), "\(text)")
            #expect(text.contains("Vary: Accept\r\n") && text.contains("Cache-Status: rnm; hit\r\n"), "\(text)")
        }

        // A drain while a head waits for its body: the head goes on, so that Hummingbird's side
        // sees a request in progress (it closes a connection without one at once).
        let draining = EmbeddedChannel(handler: handler())
        defer { _ = try? draining.finish() }
        try draining.writeInbound(ByteBuffer(string: String(request[..<split])))
        #expect(try draining.readInbound(as: ByteBuffer.self) == nil, "held")
        draining.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(try draining.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == String(request[..<split]))

        // Each on a connection of its own: one passed on holds back the hits after it.
        let other = Self.post(#"{"query":"{ character(id: 2) { name } }"}"#)
        let otherSplit = other.index(other.endIndex, offsetBy: -5)
        let padded = #"{"query":"{ character(id: 1) { name } }", "x": "\#(String(repeating: "a", count: 60))"}"#
        for reads in [[other], [String(other[..<otherSplit]), String(other[otherSplit...])], [Self.post(padded)]] {
            let channel = EmbeddedChannel(handler: handler())
            defer { _ = try? channel.finish() }
            for read in reads { try channel.writeInbound(ByteBuffer(string: read)) }
            var passed = ""
            while let part = try channel.readInbound(as: ByteBuffer.self) { passed += String(buffer: part) }
            #expect(passed == reads.joined(), "\(reads.joined().debugDescription)")
            #expect(try channel.readOutbound(as: ByteBuffer.self) == nil, "\(reads.joined().debugDescription)")
        }
    }
}
