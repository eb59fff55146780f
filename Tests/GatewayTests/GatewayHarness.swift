import Foundation
import Messaging
import NIOCore
import RnmAPI
import ServiceRuntime
import ServiceLifecycle
import TestSupport
@testable import Gateway

/// A stand-in service: echoes what it got (bytes kept as sent), or is slow, hangs, reports progress.
struct BackendHandler: RPCHandler {
    let name: String
    /// Records the method of each request as it starts (and of a health call as it ends too).
    var started: Recorder<String>? = nil
    /// Its health call never answers (a service that hangs).
    var healthHangs = false

    struct Slow: Codable { var ms: Int; var steps: Int? }

    func handle(_ request: RPCRequest, context: RPCRequestContext) async throws -> RPCReply {
        let method = request.method
        started?.append(method)
        if method.hasSuffix(".health") {
            if healthHangs { try await Task.sleep(for: .seconds(3600)) }
            defer { started?.append(method + " done") }
            return .result(
                try JSONCoding.encode(
                    ServiceHealth(
                        service: name, status: "ok", version: "test", uptimeSeconds: 1,
                        cache: [:], upstream: .init(url: "test"))))
        }
        if method.hasSuffix(".hang") {
            try await Task.sleep(for: .seconds(3600))
        }
        if method.hasSuffix(".slow") {
            let slow = try request.decodeParams(Slow.self)
            let steps = slow.steps ?? 1
            for step in 1...steps {
                do {
                    try await Task.sleep(for: .milliseconds(slow.ms))
                } catch {
                    started?.append("cancelled " + method)
                    throw error
                }
                if slow.steps != nil {
                    await context.progress(done: step, total: steps, message: "step \(step) of \(steps)")
                }
            }
        }
        var result = ByteBuffer(string: #"{ "service" : "\#(name)",  "method":"\#(method)" , "params": "#)
        var params = request.envelope.params ?? ByteBuffer(string: "null")
        result.writeBuffer(&params)
        result.writeString(#", "note": "Ünïcödé \u00e9 \"quoted\" \/ 1.50e3" }"#)
        return .result(result)
    }
}

/// A Gateway in this process, with stand-in services on sockets beside it.
struct GatewayHarness {
    let directory: String
    let gateway: RunningServer
    let characters: RunningServer?
    let universities: RunningServer?

    static func start(
        backends: Bool = true, started: Recorder<String>? = nil, requestTimeout: Duration = .seconds(15),
        healthTimeout: Duration = .seconds(20), charactersHealthHangs: Bool = false,
        maxInFlightPerConnection: Int = 256, maxInFlight: Int = 4096,
        directory: String = temporaryDirectory()
    ) async throws -> GatewayHarness {
        var characters: RunningServer?
        var universities: RunningServer?
        if backends {
            characters = try await RunningServer.start(
                handler: BackendHandler(name: "characters", started: started, healthHangs: charactersHealthHangs),
                directory: directory,
                name: "characters.sock")
            universities = try await RunningServer.start(
                handler: BackendHandler(name: "universities"), directory: directory, name: "universities.sock")
        }
        let configuration = GatewayConfiguration(
            socketPath: directory + "/gateway.sock",
            charactersSocketPath: directory + "/characters.sock",
            universitiesSocketPath: directory + "/universities.sock",
            requestTimeout: requestTimeout,
            healthTimeout: healthTimeout,
            maxInFlight: maxInFlight,
            limits: ServerLimits(maxInFlightPerConnection: maxInFlightPerConnection)
        )
        let gateway = try await RunningServer.start(socketPath: configuration.socketPath) { onListening in
            GatewayApp.build(configuration: configuration, logger: testLogger(), onListening: onListening)
        }
        return GatewayHarness(
            directory: directory, gateway: gateway, characters: characters, universities: universities)
    }

    func connect() async throws -> RPCClient {
        try await RPCClient.connect(socketPath: gateway.socketPath, service: "gateway")
    }

    func stop() async throws {
        try await gateway.stop()
        try await characters?.stop()
        try await universities?.stop()
    }
}

extension RPCClient {
    /// Calls a method with raw params; returns the reply.
    func raw(_ method: String, _ params: String? = nil, timeout: Duration = .seconds(10)) async throws -> Envelope {
        try await call(method: method, params: params.map { ByteBuffer(string: $0) }, timeout: timeout)
    }
}

extension Envelope {
    var resultText: String? { result.map { String(buffer: $0) } }
}
