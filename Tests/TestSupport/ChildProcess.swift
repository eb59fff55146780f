import Foundation

/// One of this package's executables, run as a real child process (so tests can kill it).
public final class ChildProcess: @unchecked Sendable {
    private let process = Process()
    public let name: String

    /// The folder holding the built executables (beside the test bundle).
    public static var productsDirectory: URL {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 where !FileManager.default.fileExists(atPath: url.appendingPathComponent("Gateway").path) {
            url.deleteLastPathComponent()
        }
        return url
    }

    /// Starts executable `name` with `arguments` and extra `environment`.
    public init(_ name: String, arguments: [String] = [], environment: [String: String] = [:]) throws {
        self.name = name
        let executable = Self.productsDirectory.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw ChildProcessError(message: "\(executable.path) is not built: run `swift build --build-tests` first")
        }
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        if ProcessInfo.processInfo.environment["RNM_TEST_LOG"] == nil {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
    }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    /// Sends `signal` (SIGKILL: the process dies at once, as in a crash).
    public func kill(_ signal: Int32 = SIGKILL) {
        Foundation.kill(process.processIdentifier, signal)
    }

    /// Waits for the process to exit; returns its status.
    public func waitForExit(seconds: Double = 10) async throws -> Int32 {
        let process = self.process
        try await waitUntil(seconds, "\(name) exits") { !process.isRunning }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
    }
}

public struct ChildProcessError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
