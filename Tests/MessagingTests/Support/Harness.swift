import Foundation
import Logging
import Messaging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import Testing

/// Thrown when a wait passes its deadline.
struct DeadlineExceeded: Error, CustomStringConvertible {
    let what: String
    var description: String { "deadline exceeded: \(what)" }
}

/// Runs `body`, failing with ``DeadlineExceeded`` if it takes longer than `seconds`.
/// On the deadline the body is cancelled and left behind, so a stuck body fails the test
/// instead of hanging the run.
func within<T: Sendable>(_ seconds: Double, _ what: String = "operation", _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let race = Race<T>()
    return try await withCheckedThrowingContinuation { continuation in
        race.start(continuation)
        let work = Task { race.finish(await Result(catching: body)) }
        Task {
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            race.finish(.failure(DeadlineExceeded(what: what)))
            work.cancel()
        }
    }
}

/// Resumes a continuation with whichever result comes first.
private final class Race<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T, any Error>?>(nil)

    func start(_ continuation: CheckedContinuation<T, any Error>) {
        self.continuation.withLock { $0 = continuation }
    }

    func finish(_ result: Result<T, any Error>) {
        let continuation = self.continuation.withLock { value in
            defer { value = nil }
            return value
        }
        continuation?.resume(with: result)
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// Waits until `condition` holds, polling, failing after `seconds`.
func waitUntil(_ seconds: Double = 5, _ what: String, _ condition: @escaping @Sendable () async -> Bool) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while !(await condition()) {
        guard ContinuousClock.now < deadline else { throw DeadlineExceeded(what: what) }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// A fresh folder under /tmp, short enough for socket paths (108 bytes at most).
func temporaryDirectory() -> String {
    let path = "/tmp/rnm-test-\(UUID().uuidString.prefix(8))"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// A logger that prints nothing unless RNM_TEST_LOG is set.
func testLogger(_ label: String = "test") -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = ProcessInfo.processInfo.environment["RNM_TEST_LOG"] != nil ? .debug : .critical
    return logger
}

/// A set-once flag that async code can wait on.
final class Signal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func fire() { continuation.yield() }

    func wait() async {
        for await _ in stream { return }
    }
}

/// An RPCServer running in its own ServiceGroup, for one test.
struct RunningServer {
    let socketPath: String
    let group: ServiceGroup
    let task: Task<Void, any Error>

    /// Starts `handler` on a socket in `directory` and waits until it listens.
    static func start(handler: any RPCHandler, directory: String = temporaryDirectory(), name: String = "test.sock",
                      maxFrameBytes: Int = 1_048_576, maxInFlight: Int = 4096) async throws -> RunningServer {
        let path = directory + "/" + name
        let listening = Signal()
        let server = RPCServer(
            configuration: .init(socketPath: path, maxFrameBytes: maxFrameBytes, service: "test", maxInFlightPerConnection: maxInFlight),
            handler: handler, logger: testLogger(), onListening: { listening.fire() }
        )
        let group = ServiceGroup(configuration: .init(services: [.init(service: server)], logger: testLogger()))
        let task = Task { try await group.run() }
        try await within(5, "server listening") { await listening.wait() }
        return RunningServer(socketPath: path, group: group, task: task)
    }

    /// Shuts the server down gracefully and waits for it to finish.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        let task = self.task
        try await within(5, "server stop") { try await task.value }
    }

    /// Stops the server at once, cancelling requests in flight.
    func cancel() async {
        task.cancel()
        _ = await task.result
    }

    func connect() async throws -> RPCClient {
        try await RPCClient.connect(socketPath: socketPath, service: "test")
    }
}

/// Collects values from concurrent code.
final class Recorder<T: Sendable>: Sendable {
    private let storage = Mutex<[T]>([])

    func append(_ value: T) { storage.withLock { $0.append(value) } }

    var values: [T] { storage.withLock { $0 } }
}
