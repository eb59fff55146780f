import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Messaging
import RnmAPI
import ServiceRuntime

/// A failure rnmctl reports in one line (or as JSON) and exits on.
enum CLIFailure: Error {
    case gatewayUnreachable(path: String, reason: String)
    case rpc(RPCError)
    case usage(String)
    case protocolError(String)
    /// A file could not be created (exit 73) or written (exit 74).
    case cannotCreate(String)
    case cannotWrite(String)
    /// The answer is empty in a way the user should hear about (a page past the end): exit 66.
    case nothingFound(String)

    var exitCode: Int32 {
        switch self {
        case .gatewayUnreachable: ExitStatus.unavailable
        case .rpc(let error): ExitStatus.code(for: error)
        case .usage: ExitStatus.usage
        case .protocolError: ExitStatus.protocolError
        case .cannotCreate: ExitStatus.cannotCreate
        case .cannotWrite: ExitStatus.ioError
        case .nothingFound: ExitStatus.notFound
        }
    }

    /// The message in the CLI's own terms: flags, not params; wire codes only with `--verbose`.
    func message(verbose: Bool) -> String {
        switch self {
        case .gatewayUnreachable(let path, let reason):
            """
            rnmctl: cannot reach the Gateway at \(path) (\(reason)). Start rnm with `docker-compose up -d` or \
            `scripts/rnm-local start`, or point \(Setting.gatewaySocket.named(in: .rnmctl)) at its socket.
            """
        case .rpc(let error):
            "rnmctl: \(Self.inCLITerms(error.message))"
                + (verbose ? " (code \(error.code.rawValue), \(error.service))" : "")
        case .usage(let message):
            "rnmctl: \(message)"
        case .protocolError(let message):
            "rnmctl: protocol error: \(message)"
        case .cannotCreate(let message), .cannotWrite(let message), .nothingFound(let message):
            "rnmctl: \(message)"
        }
    }

    /// Every failure under `--json`, one shape: `{"error":{"code","message","data"},"exitCode"}`.
    var json: String {
        var error: RPCError
        switch self {
        case .rpc(let wire): error = wire
        case .gatewayUnreachable, .protocolError, .cannotCreate, .cannotWrite, .nothingFound, .usage:
            error = RPCError(
                .init(rawValue: 0), String(message(verbose: false).dropFirst("rnmctl: ".count)), service: "rnmctl")
        }
        error.message = Self.inCLITerms(error.message)
        let encoded = error.json
        let code = if case .rpc = self { encoded } else { encoded.replacing("\"code\":0", with: "\"code\":null") }
        return "{\"error\":\(code),\"exitCode\":\(exitCode)}"
    }

    /// Writes the failure on stderr.
    func report(json: Bool, verbose: Bool) {
        Terminal.writeError((json ? self.json : message(verbose: verbose)) + "\n")
    }

    /// Param names as the flags the user typed: `"page" must be …` → `--page must be …`.
    static func inCLITerms(_ message: String) -> String {
        var text = message.replacing("invalid params: ", with: "")
        for param in ["page"] + RecordKind.allFilters + ["country"] {
            text = text.replacing("\"\(param)\"", with: "--\(param)")
        }
        // Ids are positional arguments: named as ArgumentParser names them in its own errors.
        return text.replacing("\"id\"", with: "<id>").replacing("\"ids\"", with: "<ids>")
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

extension GlobalOptions {
    /// Runs a command body; reports a failure on stderr and exits with its code.
    func runReporting(beforeFailure: () -> Void = {}, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            beforeFailure()
            let failure = CLIFailure(error)
            failure.report(json: json, verbose: verbose)
            throw ExitCode(failure.exitCode)
        }
    }
}
