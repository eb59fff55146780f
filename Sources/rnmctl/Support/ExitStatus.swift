import ArgumentParser
import Foundation
import Messaging

/// rnmctl's exit codes (sysexits.h).
enum ExitStatus {
    static let ok: Int32 = 0
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let notFound: Int32 = 66
    static let unavailable: Int32 = 69
    static let software: Int32 = 70
    static let timeout: Int32 = 75
    static let protocolError: Int32 = 76

    static let helpText = """
        Exit codes: 0 ok, 64 usage or invalid params, 65 request or reply too large, 66 not found, 69 unavailable (upstream down \
        with nothing cached, a service down, or the Gateway not reachable), 70 internal error, \
        75 timed out, 76 protocol error.
        """

    /// The exit code for a wire error.
    static func code(for error: RPCError) -> Int32 {
        switch error.code {
        case .invalidParams, .methodNotFound: usage
        case .tooLarge: dataError
        case .notFound: notFound
        case .upstreamUnavailable, .serviceUnavailable, .overloaded: unavailable
        case .timeout: timeout
        case .parseError, .invalidRequest: protocolError
        default: software
        }
    }
}

/// A failure rnmctl reports in one line (or as JSON) and exits on.
enum Failure: Error {
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
        case let failure as Failure: self = failure
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
        let failure = Failure(error)
        FileHandle.standardError.write(Data(((json ? failure.json : failure.message) + "\n").utf8))
        throw ExitCode(failure.exitCode)
    }
}
