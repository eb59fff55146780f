import Foundation
import Logging
import Messaging
import ServiceLifecycle

/// Everything the Gateway needs to start.
struct GatewayConfiguration: Sendable {
    var socketPath: String
    var charactersSocketPath: String
    var universitiesSocketPath: String
    var maxFrameBytes: Int
}

/// Builds the Gateway from its configuration; tests call this with test settings.
enum GatewayApp {
    static let service = ServiceName.gateway.rawValue

    static func build(configuration: GatewayConfiguration, logger: Logger,
                      onListening: (@Sendable () async -> Void)? = nil) -> [any Service] {
        let started = Date()
        let backends = [
            (ServiceName.characters, configuration.charactersSocketPath, RPCMethods.charactersHealth.name),
            (ServiceName.universities, configuration.universitiesSocketPath, RPCMethods.universitiesHealth.name),
        ]
        var router = RPCRouter(service: service)
        router.register(RPCMethods.gatewayHealth) { _, _ in
            var states: [String: GatewayHealth.ServiceState] = [:]
            for (name, path, method) in backends {
                states[name.rawValue] = await probe(path: path, service: name.rawValue, method: method,
                                                    maxFrameBytes: configuration.maxFrameBytes)
            }
            let allUp = states.values.allSatisfy { $0.status == "up" }
            return GatewayHealth(status: allUp ? "ok" : "degraded", version: rnmVersion,
                                 uptimeSeconds: Date().timeIntervalSince(started), services: states)
        }
        let server = RPCServer(
            configuration: .init(socketPath: configuration.socketPath, maxFrameBytes: configuration.maxFrameBytes, service: service),
            handler: router, logger: logger, onListening: onListening
        )
        return [server]
    }

    /// Calls a service's health method on a fresh connection.
    private static func probe(path: String, service: String, method: String, maxFrameBytes: Int) async -> GatewayHealth.ServiceState {
        let started = ContinuousClock.now
        do {
            let client = try await RPCClient.connect(socketPath: path, service: service, maxFrameBytes: maxFrameBytes)
            defer { Task { await client.close() } }
            let reply = try await client.call(method: method, params: nil, timeout: .seconds(2))
            _ = try RPCClient.decodeResult(ServiceHealth.self, from: reply, service: service)
            let elapsed = ContinuousClock.now - started
            return .init(status: "up", latencyMs: Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000, lastError: nil)
        } catch {
            return .init(status: "down", latencyMs: nil, lastError: String(describing: error))
        }
    }
}
