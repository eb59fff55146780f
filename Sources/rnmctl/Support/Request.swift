import ArgumentParser
import Foundation
import Messaging
import NIOCore

/// The freshness fields, read from any result.
private struct FreshnessProbe: Decodable {
    var stale: Bool?
    var fetchedAt: String?
    var upstreamError: String?
}

extension GlobalOptions {
    /// Calls `method` through the Gateway. With `--json` the result object is printed as it
    /// came; otherwise it is decoded and handed to `render`. A stale answer gets a one-line
    /// notice on stderr. Failures become a message and an exit code.
    func perform<P, R>(_ method: RPCMethod<P, R>, _ params: P,
                       onProgress: (@Sendable (ProgressUpdate) -> Void)? = nil,
                       render: (R) throws -> Void) async throws {
        try await runReporting(json: json) {
            var progress: RPCClient.ProgressHandler?
            if let onProgress {
                progress = { envelope in
                    guard let params = envelope.params, let update = try? JSONCoding.decode(ProgressUpdate.self, from: params) else { return }
                    onProgress(update)
                }
            }
            let paramsJSON = try JSONCoding.encode(params)
            let reply = try await withGateway { client in
                try await client.call(method: method.name, params: paramsJSON, timeout: deadline, onProgress: progress)
            }
            if let error = reply.error {
                throw Failure.rpc((try? JSONCoding.decode(RPCError.self, from: error))
                    ?? RPCError(.internalError, "unreadable error reply", service: "gateway"))
            }
            guard let result = reply.result else { throw Failure.protocolError("reply has neither result nor error") }
            if let probe = try? JSONCoding.decode(FreshnessProbe.self, from: result), probe.stale == true {
                Terminal.printError(Terminal.warning(
                    "offline: showing data cached at \(probe.fetchedAt ?? "an unknown time"); the upstream failed: \(probe.upstreamError ?? "unknown error")"))
            }
            if json {
                print(String(buffer: result))
            } else {
                try render(try JSONCoding.decode(R.self, from: result))
            }
        }
    }
}

/// "page 2 of 42 (824 characters) — next: rnmctl characters list --page 3"
func pageFooter(page: Int, pages: Int, count: Int, noun: String, command: String) -> String {
    guard pages > 0 else { return "no \(noun) found" }
    var footer = "page \(page) of \(pages) (\(count) \(noun))"
    if page < pages { footer += " — next: \(command) --page \(page + 1)" }
    return footer
}
