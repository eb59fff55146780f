import Foundation
import Logging
import Telemetry
import TestSupport
import Testing
import W3CTraceContext

@Suite("Telemetry")
struct TelemetryTests {
    @Test("merged expositions: one HELP and TYPE per metric, every series labelled with its process, rnm_up per part")
    func merge() throws {
        let gateway = Instruments()
        let service = Instruments()
        RnmMetrics.rpcRequests.counter("characters.get", "ok", in: gateway).increment(by: 3)
        RnmMetrics.rpcRequests.counter("characters.get", "ok", in: service).increment(by: 2)
        RnmMetrics.rpcRequestDuration.timer("characters.get", in: service).record(.microseconds(300))
        let text = MergedExposition.merge([
            .init(process: "gateway", exposition: gateway.exposition()),
            .init(process: "characters", exposition: service.exposition()),
            .init(process: "universities", exposition: nil),
        ])
        let exposition = try Exposition(text)
        #expect(exposition.types["rnm_rpc_requests_total"] == "counter")
        #expect(exposition.helps["rnm_rpc_requests_total"] == RnmMetrics.rpcRequests.help)
        let ok = ["method": "characters.get", "outcome": "ok"]
        #expect(exposition.value("rnm_rpc_requests_total", ok.merging(["process": "gateway"]) { $1 }) == 3)
        #expect(exposition.value("rnm_rpc_requests_total", ok.merging(["process": "characters"]) { $1 }) == 2)
        #expect(
            exposition.value(
                "rnm_rpc_request_duration_seconds_bucket", ["process": "characters", "le": "0.0005"]) == 1)
        #expect(exposition.value("rnm_up", ["process": "universities"]) == 0)
        #expect(exposition.value("rnm_up", ["process": "gateway"]) == 1)
        #expect(exposition.samples.allSatisfy { $0.labels["process"] != nil })
        // Every metric of the table has help text and a type: promtool's lint finds nothing missing.
        for name in exposition.types.keys { #expect(exposition.helps[name]?.isEmpty == false, "\(name)") }
    }

    @Test("disabled instruments record nothing and read out nothing")
    func disabled() {
        let off = Instruments.disabled
        RnmMetrics.rpcRequests.counter("characters.get", "ok", in: off).increment()
        #expect(off.exposition().isEmpty)
        #expect(!off.isEnabled)
    }

    @Test("the process's own metrics: memory, CPU, files, start time")
    func processMetrics() throws {
        let exposition = try Exposition(Instruments().exposition())
        #expect(exposition.value("process_resident_memory_bytes") > 1_000_000)
        #expect(exposition.value("process_open_fds") >= 3)
        #expect(exposition.value("process_max_fds") >= exposition.value("process_open_fds"))
        let start = exposition.value("process_start_time_seconds")
        #expect(abs(start - Date().timeIntervalSince1970) < 86_400 * 30)
        #expect(exposition.types["process_cpu_seconds_total"] == "counter")
    }

    @Test("traceparent: a valid one continued with a span of this hop, anything else replaced by a new trace")
    func traceparent() {
        let id = "4bf92f3577b34da6a3ce929d0e0e4736"
        let continued = RequestTrace.continuing(traceparent: "00-\(id)-00f067aa0ba902b7-01")
        #expect(continued.traceID == id)
        #expect(continued.traceparent.hasPrefix("00-\(id)-") && continued.traceparent.hasSuffix("-01"))
        #expect(!continued.traceparent.contains("00f067aa0ba902b7"))
        for bad in ["", "00-\(id)", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "garbage"] {
            let fresh = RequestTrace.continuing(traceparent: bad)
            #expect(fresh.traceID != id && RequestTrace.isValid(fresh.traceID), "\(bad)")
        }
        // The common shape is continued without the library; every other left to it: the same
        // decisions either way.
        for flags in ["00", "01", "03"] {
            let header = RequestTrace.traceparent(continuing: "00-\(id)-00f067aa0ba902b7-\(flags)")
            #expect(header.count == 55 && header.hasPrefix("00-\(id)-") && header.hasSuffix("-\(flags)"), "\(header)")
            #expect(!header.contains("00f067aa0ba902b7"))
        }
        for other in [
            "00-\(id.uppercased())-00f067aa0ba902b7-01", "00-\(id)-0000000000000000-01",
            "01-\(id)-00f067aa0ba902b7-01-x",
            "00-\(id)-00f067aa0ba902b7-01 ", "00_\(id)-00f067aa0ba902b7-01",
        ] {
            let header = RequestTrace.traceparent(continuing: other)
            let library = (try? TraceContext(traceParentHeaderValue: other))?.traceID.description
            let traceID = String(header.dropFirst(3).prefix(32))
            #expect(library.map { traceID == $0 } ?? (traceID != id), "\(other) → \(header)")
            #expect(header.count == 55 && RequestTrace.isValid(header.dropFirst(3).prefix(32)), "\(other) → \(header)")
        }
        #expect(!RequestTrace.isValid(id.uppercased()))
        #expect(!RequestTrace.isValid(String(repeating: "0", count: 32)))
    }

    @Test("JSON log lines parse, with the request's trace id among their metadata")
    func jsonLines() async throws {
        let trace = RequestTrace.newID()
        let line = await RequestTrace.with(trace) {
            JSONLogHandler.line(
                label: "rnm.test", level: .warning, message: "a \"quoted\"\nmessage",
                metadata: ["n": .stringConvertible(7), "list": .array(["a"])],
                provider: RequestTrace.metadataProvider)
        }
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["level"] as? String == "warning")
        #expect(object["process"] as? String == "rnm.test")
        #expect(object["message"] as? String == "a \"quoted\"\nmessage")
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["trace-id"] as? String == trace)
        #expect(metadata["n"] as? String == "7")
        #expect((object["time"] as? String)?.hasSuffix("Z") == true)
    }
}

@Suite("Metrics table")
struct MetricsTableTests {
    @Test("docs/OPERATIONS.md's table lists every metric of RnmMetrics with its type, and no other")
    func documented() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("docs/OPERATIONS.md"), encoding: .utf8)
        let rows =
            readme.split(separator: "\n").filter { $0.hasPrefix("| `") && $0.contains(" | counter |") }
            + readme.split(separator: "\n").filter {
                $0.hasPrefix("| `") && ($0.contains(" | gauge |") || $0.contains(" | histogram |"))
            }
        for metric in RnmMetrics.all {
            let row = rows.first { $0.hasPrefix("| `\(metric.name)` |") }
            #expect(
                row?.contains(" | \(metric.kind.rawValue) |") == true,
                "docs/OPERATIONS.md has no row for \(metric.name)")
        }
        let names = Set(RnmMetrics.all.map(\.name))
        for row in rows {
            let name = row.dropFirst(3).prefix { $0 != "`" }
            #expect(names.contains(String(name)), "docs/OPERATIONS.md lists \(name), which RnmMetrics does not have")
        }
        #expect(Set(RnmMetrics.all.map(\.name)).count == RnmMetrics.all.count, "a metric is in the table twice")
    }
}
