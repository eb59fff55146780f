import Foundation
#if canImport(Glibc)
    import Glibc
#endif
@testable import HTTPGateway
import TestSupport
import Testing

/// Issue 28: a micro-cache hit answered where it is read, with everything the router gives it.
@Suite("HTTPGateway: micro-cache hits", .serialized, .cleansUp)
struct MicroCacheFastPathTests {
    @Test("a repeated read: the same body and headers, an ETag and 304 for it, HEAD, keep-alive, metrics counted")
    func repeatedRead() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.startCaching(gatewaySocket: system.gatewaySocket)
            _ = try await http.get("/api/character/2")
            let first = try await http.get("/api/character/2")
            #expect(first.status == 200 && first.header("cache-status") == "rnm; hit")
            let etag = try #require(first.header("etag"))
            let asked = system.characterUpstream.requestCount
            let hit = try await http.get(
                "/api/character/2",
                headers: [("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")])
            #expect(hit.status == 200 && hit.body == first.body)
            #expect(hit.header("cache-status") == "rnm; hit" && hit.header("etag") == etag)
            #expect(hit.header("content-type") == "application/json; charset=utf-8")
            #expect(hit.header("access-control-allow-origin") == "*" && hit.header("date") != nil)
            #expect(hit.header("traceparent")?.hasPrefix("00-4bf92f3577b34da6a3ce929d0e0e4736-") == true)
            #expect(system.characterUpstream.requestCount == asked)
            let notModified = try await http.get("/api/character/2", headers: [("If-None-Match", etag)])
            #expect(notModified.status == 304 && notModified.body.isEmpty && notModified.header("etag") == etag)
            let otherTag = try await http.get("/api/character/2", headers: [("If-None-Match", "W/\"0\"")])
            #expect(otherTag.status == 200 && otherTag.body == first.body)
            let head = try await http.get("/api/character/2", method: "HEAD")
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(head.header("content-length") == String(first.body.count))
            // Several reads on one kept-alive connection, in order.
            let port = http.port
            let statuses = await onOwnThread {
                pipelinedStatuses(
                    port: port, targets: ["/api/character/2", "/api/character/99999", "/api/character/2"])
            }
            #expect(statuses == [200, 404, 200])
            let metrics = try await http.get("/metrics")
            let exposition = try Exposition(metrics.text)
            #expect(exposition.value("rnm_http_cache_hits_total", ["process": "http"]) >= 5)
            #expect(
                exposition.value(
                    "rnm_http_requests_total", ["process": "http", "route": "/api/character/{id}", "status": "304"])
                    == 1)
        }
    }
}

extension MicroCacheFastPathTests {
    @Test(
        """
        50 reads at once of an answer the micro-cache does not hold: one Gateway call, whether it is kept, fetched \
        cold or an error (issue 39)
        """
    )
    func coldBurst() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.startCaching(gatewaySocket: system.gatewaySocket)
            let labels = ["process": "gateway", "method": "characters.getMany"]
            func gatewayCalls() async throws -> Double {
                // Every outcome: an error reply is a call too.
                try Exposition(try await http.get("/metrics").text).total("rnm_rpc_requests_total", labels)
            }
            /// 50 reads of `target` at once: their statuses and bodies, and the Gateway calls made.
            /// With `held`, the upstream is held until all 50 are connected to the front, then
            /// answers with `fault` (a fetch and an error are not kept: a read that came after the
            /// first's call ended would make a call of its own).
            func burst(
                _ target: String, held: Bool = false, then fault: UpstreamFault? = nil
            ) async throws -> (
                statuses: Set<Int>, bodies: Int, calls: Double
            ) {
                let before = try await gatewayCalls()
                if held { system.characterUpstream.fault = .hang }
                let answers = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
                    for _ in 0..<50 {
                        group.addTask {
                            let a = try await http.get(target, timeout: .seconds(60)); return (a.status, a.body)
                        }
                    }
                    if held {
                        // The 50, and the scrape's own connection.
                        try await waitUntil(30, "the 50 reads connected") {
                            guard let metrics = try? await http.get("/metrics") else { return false }
                            return ((try? Exposition(metrics.text).total("rnm_http_connections")) ?? 0) >= 51
                        }
                        system.characterUpstream.fault = fault
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                let calls = try await gatewayCalls() - before
                return (Set(answers.map(\.0)), Set(answers.map(\.1)).count, calls)
            }
            // In rnm's cache, not in the micro-cache (a fetch is not kept): kept by the first.
            _ = try await http.get("/api/character/3")
            let kept = try await burst("/api/character/3")
            #expect(kept.statuses == [200] && kept.bodies == 1 && kept.calls == 1, "\(kept)")
            // In neither cache: fetched by the first (not kept), shared with the others. The fetch
            // is held until all have come: on two cores beside seven other suites, 50 connections
            // once took longer than a 300 ms fetch, and the last ones made a second call.
            let cold = try await burst("/api/character/4", held: true)
            #expect(cold.statuses == [200] && cold.bodies == 1 && cold.calls == 1, "\(cold)")
            // The upstream down: the first's error, shared (not 50 waits for the upstream).
            let failed = try await burst("/api/character/5", held: true, then: .down)
            #expect(failed.statuses == [502] && failed.calls == 1, "\(failed)")
            try await http.server.stop()
        }
    }
}

/// Sends `targets` as pipelined GETs on one connection (the last asks to close it) and returns
/// the statuses in the order they came. Blocking: on a thread of its own.
private func pipelinedStatuses(port: Int, targets: [String]) -> [Int] {
    let requests = targets.enumerated().map { index, target in
        "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(index == targets.count - 1 ? "Connection: close\r\n" : "")\r\n"
    }.joined()
    return WireClient(port: port)?.exchange(requests, answers: targets.count).map(\.status) ?? []
}

@Suite("HTTPGateway: ETags", .serialized, .cleansUp)
struct ETagTests {
    @Test("an answer fetched for this request has an ETag too, and If-None-Match with it is 304")
    func fetchedAnswer() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "0"]) { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: "http://rnm.test")
            let first = try await http.get("/api/character/3")
            #expect(first.header("cache-status") == "rnm; fwd=miss; stored")
            let etag = try #require(first.header("etag"))
            let again = try await http.get("/api/character/3", headers: [("If-None-Match", etag)])
            #expect(again.status == 304 && again.body.isEmpty)
            let list = try await http.get("/api/character/?page=2")
            let listTag = try #require(list.header("etag"))
            #expect(listTag != etag)
            #expect(try await http.get("/api/character/?page=2", headers: [("If-None-Match", listTag)]).status == 304)
        }
    }
}

@Suite("HTTPGateway: gzip", .serialized, .cleansUp)
struct GzipTests {
    @Test(
        "a list page from the micro-cache: gzipped for a client that takes it, whole for others, Vary on both"
    )
    func listPage() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.startCaching(gatewaySocket: system.gatewaySocket)
            _ = try await http.get("/api/character/?page=3")
            let plain = try await http.get("/api/character/?page=3")
            #expect(plain.header("cache-status") == "rnm; hit" && plain.header("content-encoding") == nil)
            #expect(plain.header("vary") == "Accept-Encoding")
            let gzipped = try await http.get("/api/character/?page=3", headers: [("Accept-Encoding", "gzip, br")])
            #expect(gzipped.header("content-encoding") == "gzip" && gzipped.header("vary") == "Accept-Encoding")
            #expect(gzipped.body.count < plain.body.count / 2 && gzipped.body.starts(with: [0x1f, 0x8b]))
            #expect(gzipped.header("etag") != plain.header("etag"))
            let body = gzipped.body
            let inflated = try #require(await onOwnThread { try? gunzip(body) } ?? nil)
            #expect(inflated == plain.body)
            let refused = try await http.get("/api/character/?page=3", headers: [("Accept-Encoding", "gzip;q=0")])
            #expect(refused.header("content-encoding") == nil && refused.body == plain.body)
            let tag = try #require(gzipped.header("etag"))
            let revalidated = try await http.get(
                "/api/character/?page=3", headers: [("Accept-Encoding", "gzip"), ("If-None-Match", tag)])
            #expect(revalidated.status == 304)
            // The answer that fills the micro-cache is sent as its hits will be: here gzipped.
            _ = try await http.get("/api/character/?page=4")
            let storing = try await http.get("/api/character/?page=4", headers: [("Accept-Encoding", "gzip")])
            let hit = try await http.get("/api/character/?page=4", headers: [("Accept-Encoding", "gzip")])
            #expect(storing.header("content-encoding") == "gzip" && storing.header("vary") == "Accept-Encoding")
            #expect(storing.header("etag") == hit.header("etag") && storing.body == hit.body)
            #expect(storing.header("content-length") == String(storing.body.count))
        }
    }
}

/// `bytes` gunzipped with the system's `gzip -d` (an independent decoder). Blocking: on a
/// thread of its own.
private func gunzip(_ bytes: [UInt8]) throws -> [UInt8]? {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rnm-gzip-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("body.gz")
    try Data(bytes).write(to: file)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/gzip")
    process.arguments = ["-d", file.path]
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    return Array(try Data(contentsOf: directory.appendingPathComponent("body")))
}
