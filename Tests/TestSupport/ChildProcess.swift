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

    /// Starts executable `name` with `arguments` and extra `environment`; its stderr (its log)
    /// goes to the file `logPath` when one is given.
    public init(
        _ name: String, arguments: [String] = [], environment: [String: String] = [:], logPath: String? = nil
    ) throws {
        self.name = name
        let executable = Self.productsDirectory.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw ChildProcessError(message: "\(executable.path) is not built: run `swift build --build-tests` first")
        }
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        if let logPath {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        } else if ProcessInfo.processInfo.environment["RNM_TEST_LOG"] == nil {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        let process = self.process
        TestResources.register {
            if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        }
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
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// What a finished command printed and returned.
public struct CommandOutput: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// Stdout as bytes (for binary output).
    public var stdoutBytes: Data
}

extension ChildProcess {
    /// Runs executable `name` to completion (at most `seconds`), capturing its output.
    public static func run(
        _ name: String, _ arguments: [String], environment: [String: String] = [:],
        seconds: Double = 60, currentDirectory: String? = nil
    ) async throws -> CommandOutput {
        try await run(
            executableAt: productsDirectory.appendingPathComponent(name), arguments, environment: environment,
            seconds: seconds, currentDirectory: currentDirectory)
    }

    /// Runs the executable at `executable` (a link to one of this package's, say) to completion.
    public static func run(
        executableAt executable: URL, _ arguments: [String], environment: [String: String] = [:],
        seconds: Double = 60, currentDirectory: String? = nil
    ) async throws -> CommandOutput {
        let name = executable.lastPathComponent
        let process = Process()
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let directory = temporaryDirectory()
        let outURL = URL(fileURLWithPath: directory + "/stdout")
        let errURL = URL(fileURLWithPath: directory + "/stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let box = ProcessBox(process)
        do {
            try await waitUntil(seconds, "\(name) \(arguments.joined(separator: " ")) exits") { !box.process.isRunning }
        } catch {
            process.terminate()
            throw error
        }
        let bytes = (try? Data(contentsOf: outURL)) ?? Data()
        return CommandOutput(
            status: process.terminationStatus, stdout: String(decoding: bytes, as: UTF8.self),
            stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "", stdoutBytes: bytes)
    }
}

private final class ProcessBox: @unchecked Sendable {
    let process: Process
    init(_ process: Process) { self.process = process }
}
