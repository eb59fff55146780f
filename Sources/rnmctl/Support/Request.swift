import ArgumentParser
import Foundation
import Messaging
import RnmAPI

extension GlobalOptions {
    /// Calls `method` through the Gateway. With `--json` the result object is printed as it
    /// came; otherwise it is handed to `render`. A stale answer gets a one-line notice on
    /// stderr. Failures become a message and an exit code.
    func perform<P, R>(_ method: RPCMethod<P, R>, _ params: P,
                       onProgress: (@Sendable (ProgressUpdate) -> Void)? = nil,
                       render: (R) throws -> Void) async throws {
        try await runReporting(json: json) {
            let reply = try await withGateway { client in
                try await client.callReturningJSON(method, params, timeout: deadline, onProgress: onProgress)
            }
            if let freshness = (reply.value as? any FreshnessCarrying)?.freshness, freshness.stale {
                Terminal.printError(Terminal.warning(
                    "offline: showing data cached at \(freshness.fetchedAt); the upstream failed: \(freshness.upstreamError ?? "unknown error")"))
            }
            if json {
                print(String(buffer: reply.json))
            } else {
                try render(reply.value)
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
