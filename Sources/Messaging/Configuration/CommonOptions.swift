import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import Logging
import ServiceLifecycle

/// Options every process takes, each also read from its environment variable.
public struct CommonOptions: ParsableArguments {
    @Option(name: .customLong("max-frame-bytes"), help: "Largest frame payload accepted (env RNM_MAX_FRAME_BYTES, default 1048576).")
    public var maxFrameBytes: Int?

    @Option(name: .customLong("frame-timeout-ms"), help: "Time a started frame may stay incomplete before the connection is closed (env RNM_FRAME_TIMEOUT_MS, default 10000).")
    public var frameTimeout: Int?

    @Option(name: .customLong("connection-buffer-bytes"), help: "Bytes one client connection may hold: requests being served and replies not yet read; past it the connection is not read (env RNM_CONNECTION_BUFFER_BYTES, default 4194304).")
    public var connectionBufferBytes: Int?

    @Option(name: .customLong("max-in-flight-per-connection"), help: "Requests one connection may have in flight; more get -32005 (env RNM_MAX_IN_FLIGHT_PER_CONNECTION, default 256 in the Gateway, 4096 in the services).")
    public var maxInFlightPerConnection: Int?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (env RNM_LOG_LEVEL, default info).")
    public var logLevel: String?

    public init() {}

    /// The frame limit in force.
    public func resolvedMaxFrameBytes() throws -> Int {
        try Setting.maxFrameBytes.resolveInteger(maxFrameBytes, default: Defaults.maxFrameBytes, range: 1...Int(UInt32.max))
    }

    /// How long a started frame may stay incomplete.
    public func resolvedFrameTimeout() throws -> Duration {
        .milliseconds(try Setting.frameTimeoutMilliseconds.resolveInteger(frameTimeout, default: 10_000, range: 1...3_600_000))
    }

    /// The per-connection byte budget in force.
    public func resolvedConnectionBufferBytes() throws -> Int {
        try Setting.connectionBufferBytes.resolveInteger(connectionBufferBytes, default: Defaults.connectionBufferBytes, range: 65_536...Int(Int32.max))
    }

    /// The per-connection request limit in force; `fallback` is the process's default.
    public func resolvedMaxInFlightPerConnection(default fallback: Int) throws -> Int {
        try Setting.maxInFlightPerConnection.resolveInteger(maxInFlightPerConnection, default: fallback, range: 1...1_000_000)
    }

    /// Bootstraps logging at the level in force and returns a logger labelled `label`.
    public func makeLogger(label: String) throws -> Logger {
        RNMLogging.bootstrap(label: label, level: try RNMLogging.level(logLevel ?? Setting.logLevel.value()))
    }
}

/// Runs long-lived services until SIGTERM or SIGINT, then shuts them down gracefully.
public enum ServiceRunner {
    /// How long in-flight work may take to finish after SIGTERM before it is cancelled
    /// (well inside the 10 s Docker and compose give before SIGKILL).
    public static let maximumGracefulShutdown: Duration = .seconds(7)

    /// Runs `services` in one `ServiceGroup`.
    public static func run(_ services: [any Service], logger: Logger) async throws {
        raiseOpenFileLimit(logger: logger)
        returnLargeBuffersToTheSystem()
        var configuration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        configuration.maximumGracefulShutdownDuration = maximumGracefulShutdown
        configuration.maximumCancellationDuration = .seconds(1)
        try await ServiceGroup(configuration: configuration).run()
    }

    /// Frames of up to a megabyte come and go: have malloc map every buffer over 128 KiB on
    /// its own and unmap it when freed. glibc's default raises that threshold as large buffers
    /// are freed, after which they come from heaps that rarely shrink, and memory taken by one
    /// burst (a client sending megabytes) would stay taken after it left.
    static func returnLargeBuffersToTheSystem() {
        #if canImport(Glibc)
        _ = glibcMallopt(-3 /* M_MMAP_THRESHOLD */, 128 * 1024)
        #endif
    }

    /// Lifts the soft limit on open files to the hard limit: every client connection is a file,
    /// and the usual soft limit of 1,024 is too low for a server.
    static func raiseOpenFileLimit(logger: Logger) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) != 0 {
            logger.notice("could not raise the open file limit", metadata: ["errno": "\(errno)"])
        }
    }
}

#if canImport(Glibc)
/// glibc's `mallopt(3)` (malloc.h is not part of the Glibc module).
@_silgen_name("mallopt")
private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
#endif
