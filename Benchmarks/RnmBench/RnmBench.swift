import ArgumentParser
import Foundation
import NIOCore
import NIOPosix

/// `rnm-bench`: a closed-loop load generator speaking rnm's wire protocol.
///
/// N connections each keep K requests in flight for a duration; every latency goes into an
/// HdrHistogram. Prints requests/s, p50, p99 and p99.9 (and one JSON line with `--json`).
@main
struct RnmBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rnm-bench",
        abstract: "Closed-loop load over rnm's wire protocol; prints requests/s and latency percentiles."
    )

    @Option(help: "Socket to load (the Gateway's or a service's).")
    var socket: String

    @Option(help: "Connections.")
    var connections = 32

    @Option(name: .customLong("in-flight"), help: "Requests in flight on each connection.")
    var inFlight = 1

    @Option(help: "Seconds to measure (after a warm-up of a quarter of that, at most 1 s).")
    var duration = 5.0

    @Option(help: "Method to call.")
    var method = "characters.get"

    @Option(help: "Params, as JSON.")
    var params = #"{"id":1}"#

    @Option(help: "A trace id (32 lowercase hex digits) every request carries.")
    var trace: String?

    @Flag(help: "Print one JSON line instead of text.")
    var json = false

    func run() async throws {
        let load = LoadSpecification(
            socketPath: socket, connections: connections, inFlight: inFlight,
            method: method, params: params, trace: trace)
        _ = try await load.run(seconds: min(1, duration / 4))
        let result = try await load.run(seconds: duration)
        print(json ? result.json : result.text)
        if result.errors > 0 || result.requests == 0 {
            throw ExitCode(1)
        }
    }
}
