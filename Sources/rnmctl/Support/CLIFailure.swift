import ArgumentParser
import Foundation
import Messaging

/// A failure rnmctl reports in one line (or as JSON) and exits on.
enum CLIFailure: Error {
    case gatewayUnreachable(path: String, reason: String)
    case rpc(RPCError)
    case usage(String)
    case protocolError(String)

    var exitCode: Int32 {
        switch self {
        case .gatewayUnreachable: ExitStatus.unavailable
        case .rpc(let error): ExitStatus.code(for: error)
        case .usage: ExitStatus.usage
        case .protocolError: ExitStatus.protocolError
        }
    }

    var message: String {
        switch self {
        case .gatewayUnreachable(let path, let reason):
            "rnmctl: cannot reach the Gateway at \(path) (\(reason)). Start rnm with `docker-compose up -d` or `scripts/rnm-local start`, or point --socket / RNM_GATEWAY_SOCKET at its socket."
        case .rpc(let error):
            "rnmctl: \(error.message) (code \(error.code.rawValue), \(error.service))"
        case .usage(let message):
            "rnmctl: \(message)"
        case .protocolError(let message):
            "rnmctl: protocol error: \(message)"
        }
    }

    /// The failure as a JSON object, for `--json`.
    var json: String {
        switch self {
        case .rpc(let error):
            (try? JSONCoding.encode(error)).map { String(buffer: $0) } ?? "{}"
        default:
            "{\"code\":null,\"message\":\(JSONText.quoted(message)),\"exitCode\":\(exitCode)}"
        }
    }

    /// Classifies any error thrown while running a command.
    init(_ error: any Error) {
        switch error {
        case let failure as CLIFailure: self = failure
        case let error as RPCError: self = .rpc(error)
        case let error as DecodingError: self = .protocolError("unexpected reply shape: \(error)")
        default: self = .rpc(RPCError(mapping: error, service: "rnmctl"))
        }
    }
}

/// Runs a command body; reports a failure on stderr and exits with its code.
func runReporting(json: Bool, _ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch {
        let failure = CLIFailure(error)
        FileHandle.standardError.write(Data(((json ? failure.json : failure.message) + "\n").utf8))
        throw ExitCode(failure.exitCode)
    }
}
