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

    @Option(name: .customLong("connection-buffer-bytes"), help: "Bytes one client connection may hold: requests being served and replies not yet read; past it the connection is not read (env RNM_CONNECTION_BUFFER_BYTES, default 4194304 in the Gateway, 67108864 in the services).")
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

    /// The per-connection byte budget in force; `fallback` is the process's default.
    public func resolvedConnectionBufferBytes(default fallback: Int) throws -> Int {
        try Setting.connectionBufferBytes.resolveInteger(connectionBufferBytes, default: fallback, range: 65_536...Int(Int32.max))
    }

    /// The per-connection request limit in force; `fallback` is the process's default.
    public func resolvedMaxInFlightPerConnection(default fallback: Int) throws -> Int {
        try Setting.maxInFlightPerConnection.resolveInteger(maxInFlightPerConnection, default: fallback, range: 1...1_000_000)
    }

    /// The server limits in force, given the process's defaults per connection.
    public func resolvedServerLimits(defaultMaxInFlightPerConnection maxInFlight: Int,
                                     defaultConnectionBufferBytes buffer: Int) throws -> ServerLimits {
        ServerLimits(maxFrameBytes: try resolvedMaxFrameBytes(), frameTimeout: try resolvedFrameTimeout(),
                     maxInFlightPerConnection: try resolvedMaxInFlightPerConnection(default: maxInFlight),
                     connectionBufferBytes: try resolvedConnectionBufferBytes(default: buffer))
    }

    /// Bootstraps logging at the level in force and returns a logger labelled `label`.
    public func makeLogger(label: String) throws -> Logger {
        RNMLogging.bootstrap(label: label, level: try RNMLogging.level(logLevel ?? Setting.logLevel.value()))
    }
}
