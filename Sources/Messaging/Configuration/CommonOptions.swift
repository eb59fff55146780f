import ArgumentParser
import Logging
import ServiceLifecycle

/// Options every process takes, each also read from its environment variable.
public struct CommonOptions: ParsableArguments {
    @Option(name: .customLong("max-frame-bytes"), help: "Largest frame payload accepted (env RNM_MAX_FRAME_BYTES, default 1048576).")
    public var maxFrameBytes: Int?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (env RNM_LOG_LEVEL, default info).")
    public var logLevel: String?

    public init() {}

    /// The frame limit in force.
    public func resolvedMaxFrameBytes() throws -> Int {
        try Setting.maxFrameBytes.resolveInteger(maxFrameBytes, default: 1_048_576, range: 1...Int(UInt32.max))
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
        var configuration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        configuration.maximumGracefulShutdownDuration = maximumGracefulShutdown
        configuration.maximumCancellationDuration = .seconds(1)
        try await ServiceGroup(configuration: configuration).run()
    }
}
