import ServiceRuntime
import Telemetry

/// Everything a caching service needs to start: where it listens and keeps its cache, its
/// upstream, and its limits. Tests build one directly; its defaults are the settings table's.
public struct CachingServiceConfiguration: Sendable {
    public var socketPath: String
    public var databasePath: String
    public var upstreamURL: String
    public var upstreamTimeoutMilliseconds: Int
    /// Seconds a cached answer is served without asking the upstream.
    public var maxAgeSeconds: Int
    /// The longest string parameter (`RNM_MAX_PARAM_BYTES`).
    public var maxParamBytes: Int
    /// The largest upstream body (`RNM_UPSTREAM_MAX_BYTES`).
    public var upstreamMaxBytes: Int
    /// Connections to the upstream at once (`RNM_UPSTREAM_MAX_CONNECTIONS`).
    public var upstreamMaxConnections: Int
    /// Bytes of finished replies kept (`RNM_REPLY_CACHE_BYTES`; 0 turns the reply cache off).
    public var replyCacheBytes: Int
    public var limits: ServerLimits
    /// The longest wait between probes of a failing upstream (`RNM_UPSTREAM_RETRY_MAX_MS`).
    public var retryMaxMilliseconds: Int
    /// The longest `Retry-After` obeyed (`RNM_UPSTREAM_RETRY_AFTER_MAX_MS`).
    public var retryAfterMaxMilliseconds: Int
    /// Where its metrics are recorded (`RNM_METRICS`), read by its metrics method.
    public var instruments: Instruments

    public init(
        socketPath: String, databasePath: String, upstreamURL: String,
        upstreamTimeoutMilliseconds: Int = Defaults.upstreamTimeoutMilliseconds, maxAgeSeconds: Int,
        maxParamBytes: Int = Defaults.maxParamBytes, upstreamMaxBytes: Int = Defaults.upstreamMaxBytes,
        replyCacheBytes: Int = Defaults.replyCacheBytes, limits: ServerLimits = ServerLimits(),
        retryMaxMilliseconds: Int = Defaults.upstreamRetryMaxMilliseconds,
        retryAfterMaxMilliseconds: Int = Defaults.upstreamRetryAfterMaxMilliseconds,
        upstreamMaxConnections: Int = Defaults.upstreamMaxConnections, instruments: Instruments = Instruments()
    ) {
        self.instruments = instruments
        self.upstreamMaxConnections = upstreamMaxConnections
        self.socketPath = socketPath
        self.databasePath = databasePath
        self.upstreamURL = upstreamURL
        self.upstreamTimeoutMilliseconds = upstreamTimeoutMilliseconds
        self.maxAgeSeconds = maxAgeSeconds
        self.maxParamBytes = maxParamBytes
        self.upstreamMaxBytes = upstreamMaxBytes
        self.replyCacheBytes = replyCacheBytes
        self.limits = limits
        self.retryMaxMilliseconds = retryMaxMilliseconds
        self.retryAfterMaxMilliseconds = retryAfterMaxMilliseconds
    }
}
