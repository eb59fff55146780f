import Foundation
#if canImport(Glibc)
    import Glibc
#endif
@testable import HTTPGateway
import TestSupport
import Testing

/// Issue 40: micro-cache hits answered from the request's bytes (``MicroCacheHitHandler``). What
/// a client sees must be what Hummingbird's path gives, in order, with the same idle timeout.
@Suite("HTTPGateway: hits answered from the request's bytes", .serialized, .cleansUp)
struct MicroCacheHitHandlerTests {
    @Test("a hit from the bytes has the head Hummingbird's path gives the same request, field for field")
    func sameHead() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.startCaching(gatewaySocket: system.gatewaySocket)
            for _ in 0..<2 { _ = try await http.get("/api/character/?page=2") }
            let tag = try #require(try await http.get("/api/character/?page=2").header("etag"))
            let port = http.port
            let cases = [
                ("GET", "", 200), ("GET", "Accept-Encoding: gzip\r\n", 200), ("GET", "If-None-Match: W/\"x\"\r\n", 200),
                ("GET", "If-None-Match: \(tag)\r\n", 304), ("HEAD", "", 200),
                ("HEAD", "Accept-Encoding: gzip\r\n", 200),
            ]
            for (method, extra, status) in cases {
                // The same request, and again with a `Connection` field other than keep-alive
                // (which the bytes' reader leaves to Hummingbird's side, where
                // ``MicroCacheFastPath`` answers it).
                let request = "\(method) /api/character/?page=2 HTTP/1.1\r\nHost: a\r\n\(extra)"
                let answers = try #require(
                    await onOwnThread {
                        WireClient(port: port)?.exchange(
                            request + "\r\n" + request + "Connection: x-routed\r\n\r\n", answers: 2,
                            bodies: method == "GET")
                    })
                try #require(answers.count == 2)
                let (raw, routed) = (answers[0], answers[1])
                #expect(raw.status == status && raw.fields["cache-status"] == "rnm; hit", "\(method) \(raw.fields)")
                #expect(raw.comparable == routed.comparable, "\(method) \(extra)")
                #expect(raw.body == routed.body && raw.body.isEmpty == (method == "HEAD" || status == 304))
                #expect(raw.fields["date"] != nil && raw.fields["traceparent"] != routed.fields["traceparent"])
            }
            try await http.server.stop()
        }
    }

    @Test(
        """
        a head split across two writes is a hit; a miss in a later write after hits is answered; a hit asking to close \
        is the last answer, the hit pipelined after it gets none
        """
    )
    func splitsAndClose() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.startCaching(gatewaySocket: system.gatewaySocket)
            for _ in 0..<2 { _ = try await http.get("/api/character/4") }
            let port = http.port
            let outcome = await onOwnThread { () -> (split: Int, miss: String?, closing: [Int], closed: Bool) in
                guard let client = WireClient(port: port) else { return (0, nil, [], false) }
                // The head's two halves in two writes, 50 ms apart (NODELAY: two segments).
                _ = client.send(Array("GET /api/character/4 HTTP/1.1\r\nHo".utf8))
                usleep(50_000)
                let split = client.exchange("st: a\r\n\r\n", answers: 1).first
                let miss = client.exchange("GET /api/character/9 HTTP/1.1\r\nHost: a\r\n\r\n", answers: 1).first
                let closing = client.exchange(
                    "GET /api/character/4 HTTP/1.1\r\nConnection: close\r\n\r\nGET /api/character/4 HTTP/1.1\r\n\r\n",
                    answers: 2)
                return (
                    split?.fields["cache-status"] == "rnm; hit" ? split?.status ?? 0 : 0, miss?.fields["cache-status"],
                    closing.map(\.status), client.closedWithin(.seconds(10)) != nil
                )
            }
            #expect(outcome.split == 200, "the split head answered as a hit")
            #expect(outcome.miss?.contains("fwd=miss") == true, "\(outcome.miss ?? "no answer")")
            #expect(outcome.closing == [200] && outcome.closed, "\(outcome.closing), closed: \(outcome.closed)")
            try await http.server.stop()
        }
    }

    @Test("pipelined behind a miss the upstream takes 300 ms to answer: hits wait their turn, each its own body")
    func pipelinedBehindMiss() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.startCaching(gatewaySocket: system.gatewaySocket)
            for id in [1, 2] { for _ in 0..<2 { _ = try await http.get("/api/character/\(id)") } }
            system.characterUpstream.latency = .milliseconds(300)
            let port = http.port
            let requests = [1, 7, 2, 1].map { "GET /api/character/\($0) HTTP/1.1\r\nHost: a\r\n\r\n" }.joined()
            let answers = await onOwnThread { WireClient(port: port)?.exchange(requests, answers: 4) ?? [] }
            #expect(answers.map(\.status) == [200, 200, 200, 200])
            let ids = answers.map { String(decoding: $0.body, as: UTF8.self).prefix(12) }
            #expect(ids == ["{\"id\":1,\"nam", "{\"id\":7,\"nam", "{\"id\":2,\"nam", "{\"id\":1,\"nam"], "\(ids)")
            #expect(
                answers[1].fields["cache-status"]?.contains("miss") == true
                    && answers[2].fields["cache-status"] == "rnm; hit")
            try await http.server.stop()
        }
    }
}

/// What the bytes' reader must not answer although the micro-cache holds the path: what
/// Hummingbird's side refuses (review of issue 40).
@Suite("HTTPGateway: refusals kept ahead of hits from the bytes", .serialized, .cleansUp)
struct MicroCacheHitRefusalTests {
    @Test("a connection over RNM_HTTP_MAX_CONNECTIONS_PER_CLIENT is answered 503 for a cached path too, not the hit")
    func refusedConnection() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: "http://rnm.test"
            ) {
                $0.cacheTTL = .seconds(60); $0.maxConnectionsPerClient = 1
            }
            // Kept from another address: 127.0.0.1's one slot is the first client's below.
            for _ in 0..<2 { _ = try await http.get("/api/character/1", from: "127.0.0.2") }
            let port = http.port
            let answers = await onOwnThread { () -> [WireClient.Answer] in
                let request = "GET /api/character/1 HTTP/1.1\r\nHost: a\r\n\r\n"
                guard let admitted = WireClient(port: port) else { return [] }
                return withExtendedLifetime(admitted) {
                    // Answered, so admitted (and its slot held) before the second connects.
                    let first = admitted.exchange(request, answers: 1)
                    guard let refused = WireClient(port: port) else { return first }
                    return first + refused.exchange(request + request, answers: 2)
                }
            }
            #expect(answers.map(\.status) == [200, 503], "\(answers.map(\.status))")
            if answers.count > 1 {
                #expect(
                    String(decoding: answers[1].body, as: UTF8.self).contains("RNM_HTTP_MAX_CONNECTIONS_PER_CLIENT"))
            }
            try await http.server.stop()
        }
    }

    @Test(
        """
        a head NIO's decoder refuses (over RNM_HTTP_MAX_HEADER_BYTES, or over its 1000 fields) is answered 431 for \
        a cached path too, as Hummingbird's side answers it
        """
    )
    func headsOverTheDecodersLimits() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: "http://rnm.test"
            ) {
                $0.cacheTTL = .seconds(60); $0.maxHeaderBytes = 8192
            }
            for _ in 0..<2 { _ = try await http.get("/api/character/1") }
            let port = http.port
            let padded = "X-Padding: \(String(repeating: "a", count: 9000))\r\n"
            let many = String(repeating: "a: b\r\n", count: 1001)
            for (name, extra) in [("9000 bytes", padded), ("1001 fields", many)] {
                let request = "GET /api/character/1 HTTP/1.1\r\nHost: a\r\n\(extra)"
                // As the bytes' reader would answer it, and with a `Connection` field (which it
                // leaves to Hummingbird's side): the same refusal.
                let statuses = await onOwnThread { () -> [Int] in
                    ["", "Connection: keep-alive\r\n"].map { field in
                        WireClient(port: port)?.exchange(request + field + "\r\n", answers: 1).first?.status ?? 0
                    }
                }
                #expect(statuses == [431, 431], "\(name): \(statuses)")
            }
            // Under the limits, the same path is still a hit.
            let plain = await onOwnThread {
                WireClient(port: port)?.exchange("GET /api/character/1 HTTP/1.1\r\nHost: a\r\n\r\n", answers: 1)
                    .first
            }
            #expect(plain?.status == 200 && plain?.fields["cache-status"] == "rnm; hit")
            try await http.server.stop()
        }
    }
}
