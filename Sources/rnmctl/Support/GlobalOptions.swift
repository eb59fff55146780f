import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Messaging
import RnmAPI
import ServiceRuntime
import Telemetry

/// Options every rnmctl command takes, anywhere on the line.
struct GlobalOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            """
            The Gateway's socket (default: RNM_GATEWAY_SOCKET, then $XDG_RUNTIME_DIR/rnm/gateway.sock or \
            /tmp/rnm-<uid>/gateway.sock).
            """,
            valueName: "path"),
        completion: .file())
    var socket: String?

    @Flag(help: "Print the result object as JSON on stdout (errors as JSON on stderr).")
    var json = false

    @Option(
        help: ArgumentHelp(
            "Seconds to wait for an answer; progress restarts the wait (0.001 to 86400).", valueName: "seconds"))
    var timeout: Double = 30

    @Flag(help: "Show wire error codes and the service that raised them, and the command's trace id.")
    var verbose = false

    @Flag(help: "Show every column, however wide the terminal.")
    var wide = false

    mutating func validate() throws {
        guard timeout.isFinite, (0.001...86_400).contains(timeout) else {
            // `got 0`, not `got 0.0`: the number as a person would have typed it.
            let given = timeout.rounded() == timeout && abs(timeout) < 1e15 ? String(Int(timeout)) : "\(timeout)"
            throw ValidationError("--timeout must be a number of seconds from 0.001 to 86400, got \(given)")
        }
    }

    /// The socket path in force.
    var socketPath: String {
        Setting.gatewaySocket.resolve(socket, default: DefaultPaths.socket(for: .gateway))
    }

    /// Connects to the Gateway, runs `body` under a trace id of its own (every request it sends
    /// carries it, and every process logs it: `--verbose` prints it), and turns any failure
    /// into a message and an exit code.
    func withGateway<T: Sendable>(_ body: (RPCClient) async throws -> T) async throws -> T {
        let trace = RequestTrace.newID()
        if verbose { Terminal.printError("trace \(trace)") }
        return try await RequestTrace.with(trace) { try await connected(body) }
    }

    private func connected<T: Sendable>(_ body: (RPCClient) async throws -> T) async throws -> T {
        let client: RPCClient
        do {
            client = try await RPCClient.connect(socketPath: socketPath, service: .gateway)
        } catch {
            throw CLIFailure.gatewayUnreachable(path: socketPath, reason: (error as? RPCError)?.message ?? "\(error)")
        }
        do {
            let value = try await body(client)
            await client.close()
            return value
        } catch var error as RPCError
            where error.code == .methodNotFound
            && RPCMethods.all.contains(where: { error.message.contains("\"\($0.name)\"") })
        {
            await client.close()
            // The Gateway answers every method of the route table: this socket is another
            // process's (a service's, given with --socket).
            error.message += "; is \(socketPath) the Gateway's socket? A service answers only its own methods"
            throw error
        } catch {
            await client.close()
            throw error
        }
    }

    /// The deadline as a Duration.
    var deadline: Duration { .milliseconds(Int64(timeout * 1000)) }
}
