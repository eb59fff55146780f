import Foundation
import Messaging
import NIOCore
import TestSupport
import Testing

extension FaultSuite {
    /// Issue 26: an operator sees rates, outcomes and processes down in one scrape, and follows
    /// one request through every hop by its trace id.
    @Suite("14. observability")
    struct Observability {
        @Test(
            """
            GET /metrics: counters move with traffic, a not-found and an upstream failure show under their \
            names, a killed service is rnm_up 0, and the text keeps the format's rules
            """)
        func metricsMoveWithTraffic() async throws {
            try await RnmSystem.with { system in
                let (http, port) = try await system.launchHTTP()
                defer { http.kill(SIGTERM) }
                let before = try await scrape(port)
                for id in 1...5 {
                    #expect(try await HTTPProbe.request(port: port, target: "/api/character/\(id)").status == 200)
                }
                let after = try await scrape(port)
                let getMany = ["process": "gateway", "method": "characters.getMany"]
                func grew(_ name: String, _ labels: [String: String]) -> Double {
                    after.value(name, labels) - before.value(name, labels)
                }
                #expect(grew("rnm_rpc_requests_total", getMany.merging(["outcome": "ok"]) { $1 }) == 5)
                #expect(grew("rnm_rpc_request_duration_seconds_count", getMany) == 5)
                #expect(
                    grew(
                        "rnm_http_requests_total",
                        ["process": "http", "route": "/api/character/{id}", "status": "200"]) == 5)
                #expect(after.value("rnm_cache_answers_total", ["process": "characters", "source": "fetched"]) >= 5)
                for process in ["http", "gateway", "characters", "universities"] {
                    #expect(after.value("rnm_up", ["process": process]) == 1, "\(process) up")
                    #expect(after.value("process_resident_memory_bytes", ["process": process]) > 1_000_000)
                }

                // A not-found, asked over the socket: counted under its name in both hops.
                let client = try await system.connect()
                let reply = try await client.call(
                    method: "characters.get", params: ByteBuffer(string: #"{"id":99999}"#), timeout: .seconds(10))
                #expect(reply.errorCode == .notFound)
                // An upstream failure: the stale copy answers, the 500 is counted.
                system.characterUpstream.fault = .status(500)
                let stale = try await client.call(
                    method: "characters.get", params: ByteBuffer(string: #"{"id":1}"#), timeout: .seconds(10))
                #expect(stale.result != nil)
                await client.close()
                let failing = try await scrape(port)
                for process in ["gateway", "characters"] {
                    #expect(
                        failing.value(
                            "rnm_rpc_requests_total",
                            ["process": process, "method": "characters.get", "outcome": "not_found"]) == 1)
                }
                let upstream = ["process": "characters", "upstream": "rickandmorty"]
                #expect(
                    failing.value("rnm_upstream_requests_total", upstream.merging(["outcome": "server_error"]) { $1 })
                        >= 1)
                #expect(failing.value("rnm_cache_answers_total", ["process": "characters", "source": "stale"]) >= 1)
                #expect(failing.value("rnm_upstream_state", upstream.merging(["state": "failing"]) { $1 }) == 1)

                // A service killed: the next scrape still answers, and says so.
                system.kill(.characters)
                _ = try await system.process(.characters)?.waitForExit()
                let down = try await scrape(port)
                #expect(down.value("rnm_up", ["process": "characters"]) == 0)
                #expect(down.value("rnm_up", ["process": "gateway"]) == 1)
                #expect(!down.has("rnm_rpc_requests_total", ["process": "characters"]))
            }
        }

        @Test(
            """
            GET /metrics passes promtool check metrics, a service down too (skipped, saying so, where promtool is not \
            installed, but never under CI=true)
            """,
            .enabled(if: promtoolPath != nil || runsUnderCI, "promtool is not installed here (CI installs it)")
        )
        func promtoolChecksTheText() async throws {
            let promtool = try #require(
                promtoolPath, "CI=true, but promtool is not installed: the metrics text would go unchecked")
            try await RnmSystem.with { system in
                let (http, port) = try await system.launchHTTP()
                defer { http.kill(SIGTERM) }
                for target in ["/api/character/1", "/api/character/99999", "/search?country=Japan"] {
                    _ = try await HTTPProbe.request(port: port, target: target)
                }
                let text = try await HTTPProbe.request(port: port, target: "/metrics").text
                #expect(try await promtoolProblems(text, promtool: promtool) == nil)
                system.kill(.characters)
                _ = try await system.process(.characters)?.waitForExit()
                let down = try await HTTPProbe.request(port: port, target: "/metrics").text
                #expect(try await promtoolProblems(down, promtool: promtool) == nil)
            }
        }

        @Test(
            "a traceparent given to the HTTP front comes back, and its trace id is in the JSON logs of all three hops")
        func traceThroughEveryHop() async throws {
            let settings = ["RNM_LOG_LEVEL": "debug", "RNM_LOG_FORMAT": "json"]
            try await RnmSystem.with(settings: settings) { system in
                let (http, port) = try await system.launchHTTP()
                defer { http.kill(SIGTERM) }
                let trace = "4bf92f3577b34da6a3ce929d0e0e4736"
                let response = try await HTTPProbe.request(
                    port: port, target: "/api/character/7",
                    headers: [("traceparent", "00-\(trace)-00f067aa0ba902b7-01")])
                #expect(response.status == 200)
                let back = try #require(response.header("traceparent"))
                #expect(back.hasPrefix("00-\(trace)-") && !back.contains("00f067aa0ba902b7"), "\(back)")
                for hop in ["http", "gateway", "characters"] {
                    try await waitUntil(10, "\(hop) logs the trace id") { system.log(hop).contains(trace) }
                    for line in system.log(hop).split(separator: "\n") {
                        let object = try #require(
                            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
                        #expect(object["time"] is String && object["level"] is String && object["message"] is String)
                    }
                    let traced = system.log(hop).split(separator: "\n").filter { $0.contains(trace) }
                    #expect(traced.allSatisfy { $0.contains(#""trace-id":"\#(trace)""#) }, "\(hop): \(traced)")
                }
                // A request without one gets a new trace id, returned as well.
                let fresh = try await HTTPProbe.request(port: port, target: "/api/character/8")
                let started = try #require(fresh.header("traceparent"))
                #expect(started.hasPrefix("00-") && !started.contains(trace))
            }
        }
    }
}

/// `GET /metrics`, read by the format's rules.
private func scrape(_ port: Int) async throws -> Exposition {
    let response = try await HTTPProbe.request(port: port, target: "/metrics")
    #expect(response.status == 200)
    #expect(response.header("content-type")?.hasPrefix("text/plain; version=0.0.4") == true)
    return try Exposition(response.text)
}

/// promtool (Prometheus's), where installed: on the PATH or where packages put it.
private let promtoolPath: String? = {
    let path = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map(String.init) ?? []
    return (path + ["/usr/bin", "/usr/local/bin"]).map { $0 + "/promtool" }.first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
}()

/// Whether the tests run in CI (`CI=true`), where promtool is installed and must be used.
private let runsUnderCI = ProcessInfo.processInfo.environment["CI"] == "true"

/// What `promtool check metrics` finds wrong with `text`: nil when nothing.
private func promtoolProblems(_ text: String, promtool: String) async throws -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: promtool)
    process.arguments = ["check", "metrics"]
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = output
    try process.run()
    // Blocking reads and writes: on a thread of their own, never the tests' shared pool.
    let said = await onOwnThread {
        input.fileHandleForWriting.write(Data(text.utf8))
        try? input.fileHandleForWriting.close()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return said
    }
    return process.terminationStatus == 0 ? nil : said
}
