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
    /// came; otherwise it is handed to `render`. A stale answer gets a one-line notice on
    /// stderr. Failures become a message and an exit code.
    /// With `printsResultJSON` false, `--json` still makes failures JSON but the result goes to
    /// `render` (which prints its own summary).
    /// `beforeFailure` runs before a failure is reported (a progress bar ends its line).
    func perform<P, R>(_ method: RPCMethod<P, R>, _ params: P,
                       onProgress: (@Sendable (ProgressUpdate) -> Void)? = nil, printsResultJSON: Bool = true,
                       beforeFailure: () -> Void = {}, render: (R) throws -> Void) async throws {
        try await runReporting(beforeFailure: beforeFailure) {
            let reply = try await withGateway { client in
                try await client.callReturningJSON(method, params, timeout: deadline, onProgress: onProgress)
            }
            if let freshness = (reply.value as? any FreshnessCarrying)?.freshness, freshness.stale {
                Terminal.printError(Terminal.warning(
                    "offline: showing data cached at \(freshness.fetchedAt); the upstream failed: \(freshness.upstreamError ?? "unknown error")"))
            }
            if json, printsResultJSON {
                print(String(buffer: reply.json))
            } else {
                try render(reply.value)
            }
        }
    }
}

extension GlobalOptions {
    /// `command` as the user can run it again: with the socket they gave, if any.
    func invocation(_ command: String) -> Invocation {
        Invocation(command).option("socket", socket)
    }
}

/// A command line a user can run again: `rnmctl characters list --status alive --page 2`.
struct Invocation {
    var words: [String]

    init(_ command: String) {
        words = [command]
    }

    /// Adds `--name value` when there is a value.
    func option(_ name: String, _ value: (any CustomStringConvertible)?) -> Invocation {
        guard let value else { return self }
        var copy = self
        copy.words += ["--\(name)", Self.quoted(String(describing: value))]
        return copy
    }

    var text: String { words.joined(separator: " ") }

    /// A shell word: as it is when safe, else in single quotes.
    static func quoted(_ word: String) -> String {
        let safe = word.allSatisfy { $0.isLetter || $0.isNumber || "-_./:,@+=".contains($0) }
        return safe && !word.isEmpty ? word : "'" + word.replacing("'", with: "'\\''") + "'"
    }
}

/// The line under a page: "page 2 of 42 (824 characters) — next: <the same query, next page>".
/// A page past the end is an error (exit 66) naming the last page.
func pageFooter(page: Int, pages: Int, count: Int, noun: String, query: Invocation) throws -> String {
    guard pages > 0 else { return "no \(noun) match" }
    guard page <= pages else {
        throw CLIFailure.nothingFound("there is no page \(page): \(plural(count, String(noun.dropLast()), noun)) fill \(plural(pages, "page")); the last is: \(query.option("page", pages).text)")
    }
    var footer = "page \(page) of \(pages) (\(plural(count, String(noun.dropLast()), noun)))"
    if page < pages { footer += " — next: \(query.option("page", page + 1).text)" }
    return footer
}
