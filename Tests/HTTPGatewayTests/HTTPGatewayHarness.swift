import Foundation
import NIOCore
@testable import HTTPGateway
import Synchronization
import TestSupport

/// The HTTPGateway running in this process on a free port, a client of `gatewaySocket`.
struct RunningHTTPGateway {
    let port: Int
    let server: RunningServer
    /// The port of `/metrics` on its own address (`metricsAddress`), once it listens.
    let metricsPorts: Recorder<Int>
    var metricsPort: Int? { metricsPorts.values.first }

    static func start(
        gatewaySocket: String, publicURL: String, configure: (inout HTTPGatewayConfiguration) -> Void = { _ in }
    ) async throws -> RunningHTTPGateway {
        let bound = Mutex(0)
        let metricsPorts = Recorder<Int>()
        var configuration = HTTPGatewayConfiguration(
            host: "127.0.0.1", port: 0, publicURL: publicURL, gatewaySocketPath: gatewaySocket)
        configure(&configuration)
        let final = configuration
        let server = try await RunningServer.start(socketPath: "") { onListening in
            HTTPGatewayApp.build(
                configuration: final, logger: testLogger(),
                onListening: { port in
                    bound.withLock { $0 = port }
                    await onListening()
                },
                onMetricsListening: { port in metricsPorts.append(port) })
        }
        return RunningHTTPGateway(port: bound.withLock { $0 }, server: server, metricsPorts: metricsPorts)
    }

    /// A front for `gatewaySocket` whose micro-cache keeps answers a minute: the micro-cache's
    /// tests, where a repeat must be a hit whatever the machine's speed.
    static func startCaching(gatewaySocket: String) async throws -> RunningHTTPGateway {
        try await start(gatewaySocket: gatewaySocket, publicURL: "http://rnm.test") { $0.cacheTTL = .seconds(60) }
    }

    func get(
        _ target: String, method: String = "GET", headers: [(String, String)] = [], body: [UInt8]? = nil,
        from source: String? = nil, timeout: TimeAmount = .seconds(10)
    ) async throws -> HTTPProbeResponse {
        try await HTTPProbe.request(
            port: port, method: .init(rawValue: method), target: target, headers: headers, body: body,
            timeout: timeout, from: source)
    }
}

/// Parsed JSON, compared as values (key order aside).
func jsonValue(_ bytes: [UInt8]) -> NSObject? {
    (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) as? NSObject
}

/// The object keys of a JSON text in the order written, at every depth (for key-order checks).
func objectKeys(_ text: String) -> [String] {
    var keys: [String] = []
    var index = text.startIndex
    while let quote = text[index...].firstIndex(of: "\"") {
        var end = text.index(after: quote)
        while end < text.endIndex, text[end] != "\"" {
            if text[end] == "\\" { end = text.index(after: end) }
            end = text.index(after: end)
        }
        guard end < text.endIndex else { break }
        let after = text.index(after: end)
        if after < text.endIndex, text[after] == ":" { keys.append(String(text[text.index(after: quote)..<end])) }
        index = after
    }
    return keys
}
