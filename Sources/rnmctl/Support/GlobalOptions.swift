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
        name: Setting.gatewaySocket.flagName(in: .rnmctl),
        help: ArgumentHelp(
            "\(Setting.gatewaySocket.spec.summary) (default: \(Setting.gatewaySocket.rawValue), then "
                + "\(Setting.gatewaySocket.defaultText)).",
            valueName: "path"),
        completion: .file())
    var socket: String?

    @Flag(help: "Print the result object as JSON on stdout (errors as JSON on stderr).")
    var json = false

    /// `--timeout`'s range and default, in seconds: written here once (the help, the check and
    /// its message read them).
    static let timeouts: ClosedRange<Double> = 0.001...86_400
    static let defaultTimeout: Double = 30

    @Option(
        help: ArgumentHelp(
            "Seconds to wait for an answer; progress restarts the wait "
                + "(\(GlobalOptions.seconds(timeouts.lowerBound)) to \(GlobalOptions.seconds(timeouts.upperBound))).",
            valueName: "seconds"))
    var timeout: Double = GlobalOptions.defaultTimeout

    @Flag(help: "Show wire error codes and the service that raised them, and the command's trace id.")
    var verbose = false

    @Flag(help: "Show every column, however wide the terminal.")
    var wide = false

    mutating func validate() throws {
        guard timeout.isFinite, Self.timeouts.contains(timeout) else {
            throw ValidationError(
                "--timeout must be a number of seconds from \(Self.seconds(Self.timeouts.lowerBound)) to "
                    + "\(Self.seconds(Self.timeouts.upperBound)), got \(Self.seconds(timeout))")
        }
    }

    /// `0`, not `0.0`: a number as a person would have typed it.
    static func seconds(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
    }

    /// The socket path in force.
    var socketPath: String {
        DefaultPaths.gatewaySocket(flag: socket)
    }

    /// Connects to the Gateway, runs `body` under a trace id of its own (every request it sends
    /// carries it, and every process logs it: `--verbose` prints it), and turns any failure
    /// into a message and an exit code.
    /// The connection is a ``SerialRPCClient``: rnmctl makes its calls one after the other, and
    /// an event loop's threads and pipeline were a sixth of its start.
    func withGateway<T: Sendable>(_ body: (SerialRPCClient) async throws -> T) async throws -> T {
        let trace = RequestTrace.newID()
        if verbose { Terminal.printError("trace \(trace)") }
        return try await RequestTrace.with(trace) { try await connected(body) }
    }

    private func connected<T: Sendable>(_ body: (SerialRPCClient) async throws -> T) async throws -> T {
        let client: SerialRPCClient
        do {
            client = try SerialRPCClient.connect(socketPath: socketPath, service: .gateway)
        } catch {
            throw CLIFailure.gatewayUnreachable(path: socketPath, reason: (error as? RPCError)?.message ?? "\(error)")
        }
        do {
            let value = try await body(client)
            client.close()
            return value
        } catch var error as RPCError
            where error.code == .methodNotFound
            && RPCMethods.all.contains(where: { error.message.contains("\"\($0.name)\"") })
        {
            client.close()
            // The Gateway answers every method of the route table: this socket is another
            // process's (a service's, given with --socket).
            error.message += "; is \(socketPath) the Gateway's socket? A service answers only its own methods"
            throw error
        } catch {
            client.close()
            throw error
        }
    }

    /// The deadline as a Duration.
    var deadline: Duration { .milliseconds(Int64(timeout * 1000)) }
}
