import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Messaging
import RnmAPI

extension GlobalOptions {
    /// Calls `method` through the Gateway. With `--json` the result object is printed as it
    /// came; otherwise it is handed to `render`, and a stale answer gets a one-line notice on
    /// stderr. Failures become a message and an exit code.
    /// With `printsResultJSON` false, `--json` still makes failures JSON but the result goes to
    /// `render` (which prints its own summary).
    /// `beforeFailure` runs before a failure is reported (a progress bar ends its line).
    /// `noticesStale` false: a lookup whose answer is not shown (the call it leads to gives the
    /// one notice).
    func perform<P, R>(
        _ method: RPCMethod<P, R>, _ params: P,
        onProgress: (@Sendable (ProgressUpdate) -> Void)? = nil, printsResultJSON: Bool = true,
        noticesStale: Bool = true, beforeFailure: () -> Void = {}, render: (R) throws -> Void
    ) async throws {
        try await runReporting(beforeFailure: beforeFailure) {
            let reply = try await withGateway { client in
                try await client.callReturningJSON(method, params, timeout: deadline, onProgress: onProgress)
            }
            if noticesStale { announceIfStale(reply.value, from: ServiceName(rawValue: method.owner) ?? .gateway) }
            if json, printsResultJSON {
                print(String(buffer: reply.json))
            } else {
                try render(reply.value)
            }
        }
    }
}

extension GlobalOptions {
    /// One line on stderr when `value` came from the cache because the upstream failed (none
    /// with `--json`: the result itself says so, `stale`, `upstreamError`, `fetchedAt`, and a
    /// program reading it gets one JSON document and nothing else).
    func announceIfStale(_ value: Any, from service: ServiceName) {
        guard !json, let freshness = (value as? any FreshnessCarrying)?.freshness, freshness.stale else { return }
        // The web app's sentence for the same state (UpstreamTrouble), then the upstream's own
        // words as the detail a person may want.
        let reason = freshness.upstreamError ?? "unknown error"
        Terminal.printError(
            Terminal.warning(
                """
                offline: \(UpstreamTrouble(reason).sentence(service)); \(UpstreamTrouble.showingCached) \
                \(freshness.fetchedAt) (\(reason))
                """
            ))
    }
}

extension GlobalOptions {
    /// ``perform(_:_:onProgress:printsResultJSON:beforeFailure:render:)`` with a progress bar on
    /// stderr, taken off the terminal before the result or the failure is printed.
    func performShowingProgress<P, R>(_ method: RPCMethod<P, R>, _ params: P, render: (R) throws -> Void) async throws {
        let bar = ProgressDisplay()
        defer { bar.finish() }
        // Asked for under --json too (progress restarts the deadline), but not shown: a program
        // reading stderr gets the one JSON document a failure writes, as with the stale notice.
        let shows = !json
        try await perform(method, params, onProgress: { if shows { bar.show($0) } }, beforeFailure: { bar.finish() }) {
            bar.finish()
            try render($0)
        }
    }
}

extension GlobalOptions {
    /// `command` as the user can run it again: with the socket they gave, if any.
    func invocation(_ command: String) -> Invocation {
        Invocation(command).option("socket", socket)
    }
}
