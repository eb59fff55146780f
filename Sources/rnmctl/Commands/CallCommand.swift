import ArgumentParser
import Messaging
import RnmAPI
import NIOCore

/// `rnmctl call <method> [<params>]`: any method, raw.
struct CallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call", abstract: "Call any method with JSON params; prints the result JSON.",
        discussion: Help.examples(
            "rnmctl call gateway.health", "rnmctl call characters.getMany '{\"ids\":[1,2,3]}'",
            "rnmctl --socket /run/rnm/characters.sock call characters.health"))

    @Argument(help: "The method, e.g. characters.get.")
    var method: String

    @Argument(help: "The params as a JSON object, e.g. '{\"id\": 1}'.")
    var params: String?

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.runReporting {
            var paramsBuffer: ByteBuffer?
            if let params {
                let buffer = ByteBuffer(string: params)
                let kind: JSONScanner.Kind
                do {
                    kind = try buffer.withUnsafeReadableBytes { try JSONScanner.scan($0).kind }
                } catch {
                    throw CLIFailure.usage("<params> is not JSON (\(error)); give an object, e.g. '{\"id\": 1}'")
                }
                guard kind == .object else {
                    throw CLIFailure.usage("<params> must be a JSON object, e.g. '{\"id\": 1}'")
                }
                paramsBuffer = buffer
            }
            let reply = try await global.withGateway { client in
                try await client.call(method: method, params: paramsBuffer, timeout: global.deadline)
            }
            print(String(buffer: try RPCClient.result(of: reply, service: ServiceName.gateway.rawValue)))
        }
    }
}
