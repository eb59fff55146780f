import ArgumentParser
import Messaging
import RnmAPI

/// `rnmctl status`: the Gateway's health and the state of each service.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show whether the Gateway and each service are up.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await runReporting(json: global.json) {
            let (health, json) = try await global.withGateway { client in
                try await client.callReturningJSON(RPCMethods.gatewayHealth, NoParams(), timeout: global.deadline)
            }
            if global.json {
                print(String(buffer: json))
                return
            }
            print("gateway: \(health.status) (version \(health.version), up \(Int(health.uptimeSeconds)) s)")
            for (name, state) in health.services.sorted(by: { $0.key < $1.key }) {
                var line = "\(name): \(state.status)"
                if let latency = state.latencyMs { line += String(format: " (%.1f ms)", latency) }
                if let error = state.lastError { line += " — \(error)" }
                print(line)
            }
        }
    }
}
