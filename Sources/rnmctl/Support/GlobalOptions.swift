import ArgumentParser
import Foundation
import Messaging
import RnmAPI
import ServiceRuntime

/// Options every rnmctl command takes.
struct GlobalOptions: ParsableArguments {
    @Option(help: "The Gateway's socket (default: RNM_GATEWAY_SOCKET, then $XDG_RUNTIME_DIR/rnm/gateway.sock or /tmp/rnm-<uid>/gateway.sock).")
    var socket: String?

    @Flag(help: "Print the result object as JSON on stdout (errors as JSON on stderr).")
    var json = false

    @Option(help: "Seconds to wait for an answer.")
    var timeout: Double = 30

    /// The socket path in force.
    var socketPath: String {
        Setting.gatewaySocket.resolve(socket, default: DefaultPaths.socket(for: .gateway))
    }

    /// Connects to the Gateway, runs `body`, and turns any failure into a message and an exit code.
    func withGateway<T: Sendable>(_ body: (RPCClient) async throws -> T) async throws -> T {
        let client: RPCClient
        do {
            client = try await RPCClient.connect(socketPath: socketPath, service: ServiceName.gateway)
        } catch {
            throw CLIFailure.gatewayUnreachable(path: socketPath, reason: (error as? RPCError)?.message ?? "\(error)")
        }
        do {
            let value = try await body(client)
            await client.close()
            return value
        } catch {
            await client.close()
            throw error
        }
    }

    /// The deadline as a Duration.
    var deadline: Duration { .milliseconds(Int64(timeout * 1000)) }
}
