import Foundation
import Testing

/// A PostgreSQL server of a test's own (scripts/testing/postgres), which the test may really
/// stop and start again: an outage as operators see one. Nil, said as a known issue (or a
/// failure where PostgreSQL is required), when no PostgreSQL binaries are installed.
public final class ThrowawayPostgres: Sendable {
    /// `postgres://rnm:…@127.0.0.1:port/rnm`.
    public let url: String
    private let directory: String

    private init(url: String, directory: String) {
        self.url = url
        self.directory = directory
    }

    private static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/testing/postgres").path
    }

    /// A new cluster, running.
    public static func start(sourceLocation: SourceLocation = #_sourceLocation) async throws -> ThrowawayPostgres? {
        // Not under the test's temporary folder: the server (user postgres, as root) must enter it.
        let directory = "/tmp/rnm-pgt-" + UUID().uuidString.prefix(8).lowercased()
        let output = try await run("start", directory)
        guard output.status == 0 else {
            let why = Comment(rawValue: "PostgreSQL stop/start test SKIPPED: \(output.stderr)")
            if TestPostgres.required {
                Issue.record(why, sourceLocation: sourceLocation)
            } else {
                withKnownIssue(why) { Issue.record(why, sourceLocation: sourceLocation) }
            }
            _ = try? await run("stop", directory)
            return nil
        }
        return ThrowawayPostgres(
            url: output.stdout.trimmingCharacters(in: .whitespacesAndNewlines), directory: directory)
    }

    /// Stops the server (`pg_ctl stop -m fast`), keeping its data.
    public func pause() async throws { try await expectSuccess("pause") }

    /// Starts it again on the same port.
    public func resume() async throws { try await expectSuccess("resume") }

    /// Stops it and removes its folder.
    public func stop() async throws { try await expectSuccess("stop") }

    private func expectSuccess(_ command: String) async throws {
        let output = try await Self.run(command, directory)
        guard output.status == 0 else {
            throw ChildProcessError(message: "postgres \(command): \(output.stderr)")
        }
    }

    private static func run(_ command: String, _ directory: String) async throws -> CommandOutput {
        try await ChildProcess.run(
            executableAt: URL(fileURLWithPath: "/bin/bash"), [script, command, directory], seconds: 60)
    }
}
