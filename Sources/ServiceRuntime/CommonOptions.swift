import ArgumentParser
#if canImport(Glibc)
    import Glibc
#endif
import Logging
import ServiceLifecycle
import Telemetry

/// Options every process takes, each also read from its environment variable.
public struct CommonOptions: ParsableArguments {
    @Option(name: Setting.maxFrameBytes.flagName, help: Setting.maxFrameBytes.help)
    public var maxFrameBytes: Int?

    @Option(name: Setting.frameTimeoutMilliseconds.flagName, help: Setting.frameTimeoutMilliseconds.help)
    public var frameTimeout: Int?

    @Option(name: Setting.connectionBufferBytes.flagName, help: Setting.connectionBufferBytes.help)
    public var connectionBufferBytes: Int?

    @Option(name: Setting.maxInFlightPerConnection.flagName, help: Setting.maxInFlightPerConnection.help)
    public var maxInFlightPerConnection: Int?

    @Option(name: Setting.maxConnections.flagName, help: Setting.maxConnections.help)
    public var maxConnections: Int?

    @Option(name: Setting.maxUnreadBytes.flagName, help: Setting.maxUnreadBytes.help)
    public var maxUnreadBytes: Int?

    @Option(name: Setting.unreadTimeoutMilliseconds.flagName, help: Setting.unreadTimeoutMilliseconds.help)
    public var unreadTimeout: Int?

    @Option(name: Setting.logLevel.flagName, help: Setting.logLevel.help)
    public var logLevel: String?

    @Option(name: Setting.logFormat.flagName, help: Setting.logFormat.help)
    public var logFormat: String?

    @Option(name: Setting.metrics.flagName, help: Setting.metrics.help)
    public var metrics: String?

    public init() {}

    /// The frame limit in force.
    public func resolvedMaxFrameBytes() throws -> Int {
        try Setting.maxFrameBytes.resolveInteger(maxFrameBytes)
    }

    /// How long a started frame may stay incomplete.
    public func resolvedFrameTimeout() throws -> Duration {
        .milliseconds(try Setting.frameTimeoutMilliseconds.resolveInteger(frameTimeout))
    }

    /// The server limits in force in a process of kind `process` (their defaults differ).
    public func resolvedServerLimits(in process: ProcessKind) throws -> ServerLimits {
        ServerLimits(
            maxFrameBytes: try resolvedMaxFrameBytes(), frameTimeout: try resolvedFrameTimeout(),
            maxInFlightPerConnection: try Setting.maxInFlightPerConnection.resolveInteger(
                maxInFlightPerConnection,
                in: process),
            connectionBufferBytes: try Setting.connectionBufferBytes.resolveInteger(connectionBufferBytes, in: process),
            maxConnections: try Setting.maxConnections.resolveInteger(maxConnections),
            maxUnreadBytes: try Setting.maxUnreadBytes.resolveInteger(maxUnreadBytes),
            sendTimeout: .milliseconds(try Setting.unreadTimeoutMilliseconds.resolveInteger(unreadTimeout)))
    }

    /// Bootstraps logging at the level and in the format in force and returns a logger
    /// labelled `label`.
    public func makeLogger(label: String) throws -> Logger {
        RNMLogging.bootstrap(
            label: label, level: try RNMLogging.level(Setting.logLevel.resolve(logLevel)),
            format: try RNMLogging.format(Setting.logFormat.resolve(logFormat)))
    }

    /// The process's metrics: recorded unless `RNM_METRICS` (or `--metrics`) is `off`.
    public func makeInstruments() throws -> Instruments {
        let value = Setting.metrics.resolve(metrics)
        switch value.lowercased() {
        case "on": return Instruments()
        case "off": return .disabled
        default: throw SettingError(setting: .metrics, value: value, expected: "on or off")
        }
    }
}
