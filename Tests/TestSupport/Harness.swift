import Foundation
import Logging
import Messaging
import NIOCore
import NIOPosix
import ServiceLifecycle
import ServiceRuntime
import Synchronization

/// Thrown when a wait passes its deadline.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    public let what: String
    public var description: String { "deadline exceeded: \(what)" }
}

/// Runs `body`, failing with ``DeadlineExceeded`` if it takes longer than `seconds`.
/// On the deadline the body is cancelled and left behind, so a stuck body fails the test
/// instead of hanging the run.
public func within<T: Sendable>(
    _ seconds: Double, _ what: String = "operation", _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
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
    public init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// Waits until `condition` holds, polling, failing after `seconds`.
public func waitUntil(
    _ seconds: Double = 5, _ what: String, pollEvery interval: Duration = .milliseconds(10),
    _ condition: @escaping @Sendable () async -> Bool
) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while !(await condition()) {
        guard ContinuousClock.now < deadline else { throw DeadlineExceeded(what: what) }
        try await Task.sleep(for: interval)
    }
}

/// A fresh folder under /tmp, short enough for socket paths (108 bytes at most).
public func temporaryDirectory() -> String {
    let path = "/tmp/rnm-test-\(UUID().uuidString.prefix(8))"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    TestResources.register { try? FileManager.default.removeItem(atPath: path) }
    return path
}

/// A logger that prints nothing unless RNM_TEST_LOG is set.
public func testLogger(_ label: String = "test") -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = ProcessInfo.processInfo.environment["RNM_TEST_LOG"] != nil ? .debug : .critical
    return logger
}

/// A set-once flag that async code can wait on.
public final class Signal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    public func fire() { continuation.yield() }

    public func wait() async {
        for await _ in stream { return }
    }
}

/// An RPCServer running in its own ServiceGroup, for one test.
public struct RunningServer: Sendable {
    public let socketPath: String
    public let group: ServiceGroup
    public let task: Task<Void, any Error>

    /// Starts `handler` on a socket in `directory` and waits until it listens.
    public static func start(
        handler: any RPCHandler, directory: String = temporaryDirectory(), name: String = "test.sock",
        maxFrameBytes: Int = 1_048_576, maxInFlight: Int = 4096,
        configure: (inout RPCServerConfiguration) -> Void = { _ in }
    ) async throws -> RunningServer {
        let path = directory + "/" + name
        var configuration = RPCServerConfiguration(
            socketPath: path, maxFrameBytes: maxFrameBytes, service: "test", maxInFlightPerConnection: maxInFlight)
        configure(&configuration)
        return try await start(socketPath: path) { [configuration] onListening in
            [
                ServerService(
                    RPCServer(
                        configuration: configuration, handler: handler, logger: testLogger(), onListening: onListening))
            ]
        }
    }

    /// Runs the services `build` makes (it must pass `onListening` to its server) in a
    /// ServiceGroup, and waits until the server listens on `socketPath`.
    public static func start(
        socketPath: String,
        build: (@escaping @Sendable () async -> Void) throws -> [any Service]
    ) async throws -> RunningServer {
        let listening = Signal()
        let services = try build { listening.fire() }
        let group = ServiceGroup(
            configuration: .init(services: services.map { .init(service: $0) }, logger: testLogger()))
        let task = Task { try await group.run() }
        TestResources.register {
            task.cancel()
            _ = await task.result
        }
        try await within(10, "server listening") { await listening.wait() }
        return RunningServer(socketPath: socketPath, group: group, task: task)
    }

    /// Shuts the server down gracefully and waits for it to finish.
    public func stop() async throws {
        await group.triggerGracefulShutdown()
        let task = self.task
        try await within(20, "server stop") { try await task.value }
    }

    /// Stops the server at once, cancelling requests in flight.
    public func cancel() async {
        task.cancel()
        _ = await task.result
    }

    public func connect() async throws -> RPCClient {
        try await RPCClient.connect(socketPath: socketPath, service: "test")
    }
}

/// Collects values from concurrent code.
public final class Recorder<T: Sendable>: Sendable {
    private let storage = Mutex<[T]>([])

    public init() {}

    public func append(_ value: T) { storage.withLock { $0.append(value) } }

    public var values: [T] { storage.withLock { $0 } }
}

/// libcurl obeys `http_proxy` even for 127.0.0.1: tests that talk to a local upstream call
/// this first so no proxy is ever used.
public func bypassProxies() {
    _ = proxiesBypassed
}

/// Set once, and only when not set already (`.ci/run` and the README's commands export it):
/// `setenv` while another test's `Process.run()` copies the environment crashed the suite
/// (glibc's environment is not safe to change while it is read).
private let proxiesBypassed: Void = {
    for name in ["no_proxy", "NO_PROXY"] {
        let current = getenv(name).map { String(cString: $0) } ?? ""
        if !current.contains("127.0.0.1") {
            setenv(name, "127.0.0.1,localhost" + (current.isEmpty ? "" : "," + current), 1)
        }
    }
}()

/// The ``RPCError`` a call fails with (nil if it succeeds or fails otherwise).
public func rpcError(of body: () async throws -> some Any) async -> RPCError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error as? RPCError
    }
}

/// Runs blocking work (a socket read or write that waits, a `poll`) on a thread of its own and
/// waits for it without blocking: on Swift's cooperative pool (two threads on these machines)
/// a few seconds of it stalled every other test of the process, which then missed deadlines.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
