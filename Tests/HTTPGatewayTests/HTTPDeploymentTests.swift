import Foundation
@testable import HTTPGateway
import HTTPTypes
import RnmAPI
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 36: what a load balancer, the kubelet and Prometheus need of the HTTP front.
@Suite("HTTPGateway: probes, drain, metrics address, trusted proxies", .serialized, .cleansUp)
struct HTTPDeploymentTests {
    @Test("/livez answers without the Gateway; /readyz is 200 only when the Gateway and both services answer")
    func probes() async throws {
        // Nothing behind the front yet (a pod starting): alive, not ready, and a read is a 503
        // to retry, never a 502.
        let alone = try await RunningHTTPGateway.start(
            gatewaySocket: temporaryDirectory() + "/absent.sock", publicURL: "")
        #expect(try await alone.get("/livez").status == 200)
        let starting = try await alone.get("/readyz")
        #expect(starting.status == 503 && starting.header("Retry-After") == "1", "\(starting.status) \(starting.text)")
        #expect(starting.header("Access-Control-Allow-Origin") == nil)
        let read = try await alone.get("/api/character/1")
        #expect(read.status == 503 && read.header("Retry-After") == "1", "\(read.status)")
        try await alone.server.stop()

        try await RnmSystem.with { system in
            let http = try await RunningHTTPGateway.start(gatewaySocket: system.gatewaySocket, publicURL: "")
            let ready = try await http.get("/readyz")
            #expect(ready.status == 200, "\(ready.text)")
            #expect(ready.text.contains("\"characters\":\"up\"") && ready.text.contains("\"universities\":\"up\""))
            #expect(ready.header("Cache-Control") == "no-store")
            system.kill(.universities)
            try await waitUntil(10, "/readyz 503 naming the stopped service") {
                guard let answer = try? await http.get("/readyz") else { return false }
                return answer.status == 503 && answer.text.contains("universities")
            }
            // Alive all the while: the kubelet must not restart the front for a service.
            #expect(try await http.get("/livez").status == 200)
            try system.launch(.universities)
            try await waitUntil(10, "/readyz 200 again") { (try? await http.get("/readyz"))?.status == 200 }
            try await http.server.stop()
        }
    }

    @Test(
        """
        after SIGTERM: for RNM_HTTP_DRAIN_MS it answers, not ready, closing each connection after its answer; then it \
        refuses new connections while a slow request finishes
        """
    )
    func drain() async throws {
        let settings = ["RNM_UPSTREAM_TIMEOUT_MS": "30000", "RNM_CHARACTERS_MAX_AGE": "600"]
        try await RnmSystem.with(settings: settings) { system in
            let http = try await RunningHTTPGateway.start(gatewaySocket: system.gatewaySocket, publicURL: "") {
                // Long enough that the steps below fit in it on a busy machine (1.5 s did not).
                $0.drain = .seconds(8)
            }
            #expect(try await http.get("/api/character/1").status == 200)
            let keptAlive = try StuckClient(port: http.port)
            defer { keptAlive.close() }
            // A cold read held at the upstream: in flight through the whole drain, let go after it.
            system.characterUpstream.fault = .hang
            let before = system.characterUpstream.requestCount
            let slow = Task { try await http.get("/api/character/7", timeout: .seconds(60)) }
            try await waitUntil(10, "the slow read at the upstream") { system.characterUpstream.requestCount > before }

            let stopped = Task { await http.server.group.triggerGracefulShutdown() }
            try await waitUntil(5, "/readyz 503 draining") {
                guard let answer = try? await http.get("/readyz") else { return false }
                return answer.status == 503 && answer.text.contains("draining")
            }
            // A connection opened before: its next answer says close, and it is closed.
            try keptAlive.send("GET /api/character/1 HTTP/1.1\r\nHost: x\r\n\r\n")
            let text = await Task.detached { keptAlive.receiveText() }.value
            #expect(text.hasPrefix("HTTP/1.1 200") && text.lowercased().contains("connection: close"), "\(text)")
            #expect(await Task.detached { keptAlive.waitForClose() }.value, "the kept-alive connection closed")
            // A new connection during the drain is answered (a load balancer may still send it).
            let during = try await http.get("/api/character/1")
            #expect(during.status == 200)
            // After the drain: refused at connect, while the slow read is still in flight.
            try await waitUntil(20, "new connections refused") { (try? await http.get("/livez")) == nil }
            system.characterUpstream.fault = nil
            let answer = try await slow.value
            #expect(answer.status == 200, "the read in flight finished: \(answer.status)")
            await stopped.value
            try await within(10, "the front stopped") { try await http.server.task.value }
        }
    }

    @Test(
        """
        RNM_HTTP_METRICS_ADDRESS: /metrics answers there, every process's, and is 404 on the public port; the probes \
        answer there too
        """
    )
    func metricsAddress() async throws {
        try await RnmSystem.with { system in
            let http = try await RunningHTTPGateway.start(gatewaySocket: system.gatewaySocket, publicURL: "") {
                $0.metricsAddress = ("127.0.0.1", 0)
            }
            try await waitUntil(10, "the metrics port listening") { http.metricsPort != nil }
            let port = try #require(http.metricsPort)
            let metrics = try await HTTPProbe.request(port: port, target: "/metrics")
            #expect(metrics.status == 200)
            for process in ["http", "gateway", "characters", "universities"] {
                #expect(metrics.text.contains("process=\"\(process)\""), "no \(process) metrics")
            }
            #expect(metrics.header("Access-Control-Allow-Origin") == nil)
            #expect(try await http.get("/metrics").status == 404)
            #expect(try await HTTPProbe.request(port: port, target: "/api/character/1").status == 404)
            // The probes answer there too, outside the public port's connection caps.
            #expect(try await HTTPProbe.request(port: port, target: "/livez").status == 200)
            #expect(try await HTTPProbe.request(port: port, target: "/readyz").status == 200)
            try await http.server.stop()
        }
    }

    @Test(
        """
        behind a trusted proxy, the per-client limits count X-Forwarded-For's client: one client's cap is not everyone's
        """
    )
    func trustedProxy() async throws {
        try await RnmSystem.with(settings: ["RNM_UPSTREAM_TIMEOUT_MS": "60000"]) { system in
            let http = try await RunningHTTPGateway.start(gatewaySocket: system.gatewaySocket, publicURL: "") {
                $0.trustedProxies = try! TrustedProxies.parse("127.0.0.1, 10.0.0.0/8").get()
                $0.graphQL.maxRunningPerClient = 1
                $0.maxConnectionsPerClient = 2
                $0.requestTimeout = .seconds(60)
            }
            // Connections: the proxy's 4 are all taken (only the overall cap counts a proxy's);
            // an untrusted address's third is refused.
            let proxied = try (0..<4).map { _ in try StuckClient(port: http.port) }
            let direct = try (0..<3).map { _ in try StuckClient(port: http.port, from: "127.0.0.2") }
            defer { (proxied + direct).forEach { $0.close() } }
            var statuses: [String] = []
            for client in proxied + direct {
                try client.send("GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                statuses.append(String(await Task.detached { client.receiveText() }.value.prefix(12)))
            }
            // Which of the direct three is refused is the order the server accepted them in.
            #expect(statuses.prefix(4).allSatisfy { $0 == "HTTP/1.1 200" }, "the proxy's: \(statuses)")
            #expect(statuses.suffix(3).sorted() == ["HTTP/1.1 200", "HTTP/1.1 200", "HTTP/1.1 503"], "\(statuses)")

            // GraphQL: client A's one query at a time, wherever the proxy says A is; B is not A;
            // a direct client naming A, or a client writing its own `Forwarded`, is not A. Each
            // query a record of its own, so none shares another's fetch.
            system.characterUpstream.fault = .hang
            let before = system.characterUpstream.requestCount
            func query(_ id: Int) -> String { "{ character(id: \(id)) { name } }" }
            let heldA = Task { try await http.graphQL(query(9), headers: [("X-Forwarded-For", "203.0.113.7")]) }
            try await waitUntil(10, "A's query at the upstream") { system.characterUpstream.requestCount > before }
            let againA = try await http.graphQL(
                query(10), headers: [("X-Forwarded-For", "198.51.100.1, 203.0.113.7, 10.1.2.3")])
            #expect(againA.response.status == 503, "A's second query: \(againA.response.status)")
            let heldB = Task { try await http.graphQL(query(11), headers: [("X-Forwarded-For", "192.0.2.8")]) }
            // Behind the proxy, a client's own Forwarded header names nobody: this is A again.
            let forged = try await http.graphQL(
                query(12), headers: [("Forwarded", "for=192.0.2.77"), ("X-Forwarded-For", "203.0.113.7")])
            #expect(forged.response.status == 503, "a Forwarded header chose the client: \(forged.response.status)")
            // Directly, without a proxy, the header is the client's own claim: naming A does not
            // make it A (it is admitted as itself).
            let encoded = query(13).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let spoofed = Task {
                try await http.get(
                    "/graphql?query=\(encoded)", headers: [("X-Forwarded-For", "203.0.113.7")], from: "127.0.0.3")
            }
            // B's and the direct client's queries admitted beside A's: all three at the upstream.
            try await waitUntil(10, "B's and the direct client's queries at the upstream") {
                system.characterUpstream.requestCount >= before + 3
            }
            system.characterUpstream.fault = nil
            #expect(try await heldA.value.response.status == 200)
            #expect(try await heldB.value.response.status == 200, "B was admitted beside A")
            let itself = try await spoofed.value
            #expect(itself.status == 200, "a direct client naming A was admitted as itself: \(itself.text)")
            try await http.server.stop()
        }
    }

    @Test(
        """
        the client a trusted proxy names: nearest untrusted hop of X-Forwarded-For, one spelling per address, nothing \
        from others
        """
    )
    func clientAddress() throws {
        let proxies = try TrustedProxies.parse("10.0.0.0/8, 2001:db8:ffff::/48, 192.0.2.1").get()
        func client(_ peer: String, _ fields: [(String, String)]) -> String {
            var headers = HTTPFields()
            for (name, value) in fields { headers.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
            return proxies.client(peer: peer, headers: headers)
        }
        #expect(client("198.51.100.5", [("X-Forwarded-For", "1.2.3.4")]) == "198.51.100.5")
        #expect(client("10.0.0.2", [("X-Forwarded-For", "6.6.6.6, 1.2.3.4")]) == "1.2.3.4")
        #expect(client("10.0.0.2", [("X-Forwarded-For", "1.2.3.4, 10.9.9.9")]) == "1.2.3.4")
        #expect(client("10.0.0.2", [("X-Forwarded-For", "1.2.3.4"), ("X-Forwarded-For", "10.0.0.7")]) == "1.2.3.4")
        #expect(client("192.0.2.1", [("X-Forwarded-For", "::ffff:1.2.3.4")]) == "1.2.3.4")
        #expect(client("2001:db8:ffff::9", [("X-Forwarded-For", "2001:DB8:0:0::1")]) == "2001:db8::1")
        // Forwarded is not read (proxies pass a client's own through): only X-Forwarded-For.
        #expect(client("10.0.0.2", [("Forwarded", "for=192.0.2.60"), ("X-Forwarded-For", "1.2.3.4")]) == "1.2.3.4")
        #expect(client("10.0.0.2", [("Forwarded", "for=192.0.2.60")]) == "10.0.0.2")
        #expect(client("10.0.0.2", [("X-Forwarded-For", "1.2.3.4, garbage")]) == "10.0.0.2")
        #expect(client("10.0.0.2", []) == "10.0.0.2")
        if case .failure(let failure) = TrustedProxies.parse("10.0.0.0/8, proxy.local") {
            #expect(failure.entry == "proxy.local")
        } else {
            Issue.record("a name is refused")
        }
        #expect((try? TrustedProxies.parse("10.0.0.0/33").get()) == nil)
    }
}
