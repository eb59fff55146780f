import ArgumentParser
import RnmAPI

/// What distinguishes one caching service (the CharacterService, the UniversityService) in
/// the template both fill in: its name, its settings and their defaults.
public protocol CachingServiceSpec: Sendable {
    static var name: ServiceName { get }
    static var socketSetting: Setting { get }
    static var databaseSetting: Setting { get }
    static var upstreamSetting: Setting { get }
    static var maxAgeSetting: Setting { get }
    static var defaultUpstreamURL: String { get }
    /// Seconds a cached answer is served without asking the upstream, by default.
    static var defaultMaxAge: Int { get }
}

/// Everything a caching service needs to start: where it listens and keeps its cache, its
/// upstream, and its limits. Tests build one directly.
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
    /// Bytes of finished replies kept (`RNM_REPLY_CACHE_BYTES`; 0 turns the reply cache off).
    public var replyCacheBytes: Int
    public var limits: ServerLimits
    /// The longest wait between probes of a failing upstream (`RNM_UPSTREAM_RETRY_MAX_MS`).
    public var retryMaxMilliseconds = Defaults.upstreamRetryMaxMilliseconds
    /// The longest `Retry-After` obeyed (`RNM_UPSTREAM_RETRY_AFTER_MAX_MS`).
    public var retryAfterMaxMilliseconds = Defaults.upstreamRetryAfterMaxMilliseconds

    public init(socketPath: String, databasePath: String, upstreamURL: String, upstreamTimeoutMilliseconds: Int = 5000,
                maxAgeSeconds: Int, maxParamBytes: Int = Defaults.maxParamBytes, upstreamMaxBytes: Int = Defaults.upstreamMaxBytes,
                replyCacheBytes: Int = Defaults.replyCacheBytes, limits: ServerLimits = ServerLimits(),
                retryMaxMilliseconds: Int = Defaults.upstreamRetryMaxMilliseconds,
                retryAfterMaxMilliseconds: Int = Defaults.upstreamRetryAfterMaxMilliseconds) {
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

/// The options of a caching service's command line, each also read from its environment
/// variable: the one template both services fill in with their ``CachingServiceSpec``.
public struct CachingServiceOptions<Spec: CachingServiceSpec>: ParsableArguments {
    @Option(help: ArgumentHelp("Socket to listen on (env \(Spec.socketSetting.rawValue)).", valueName: "path"))
    var socket: String?

    @Option(help: ArgumentHelp("SQLite cache file (env \(Spec.databaseSetting.rawValue), default $XDG_DATA_HOME/rnm/\(Spec.name.rawValue).sqlite).", valueName: "path"))
    var database: String?

    @Option(name: .customLong("upstream-url"), help: "Upstream base URL (env \(Spec.upstreamSetting.rawValue), default \(Spec.defaultUpstreamURL)).")
    var upstreamURL: String?

    @Option(name: .customLong("upstream-timeout-ms"), help: "Timeout of one upstream request (env RNM_UPSTREAM_TIMEOUT_MS, default 5000).")
    var upstreamTimeout: Int?

    @Option(name: .customLong("max-age"), help: "Seconds a cached answer is served without asking the upstream (env \(Spec.maxAgeSetting.rawValue), default \(Spec.defaultMaxAge)).")
    var maxAge: Int?

    @Option(name: .customLong("max-param-bytes"), help: "Longest string parameter in bytes (env RNM_MAX_PARAM_BYTES, default \(Defaults.maxParamBytes)).")
    var maxParamBytes: Int?

    @Option(name: .customLong("upstream-max-bytes"), help: "Largest upstream response body (env RNM_UPSTREAM_MAX_BYTES, default \(Defaults.upstreamMaxBytes)).")
    var upstreamMaxBytes: Int?

    @Option(name: .customLong("upstream-retry-max-ms"), help: "Longest wait between probes of a failing upstream (env RNM_UPSTREAM_RETRY_MAX_MS, default \(Defaults.upstreamRetryMaxMilliseconds)).")
    var retryMax: Int?

    @Option(name: .customLong("upstream-retry-after-max-ms"), help: "Longest Retry-After obeyed (env RNM_UPSTREAM_RETRY_AFTER_MAX_MS, default \(Defaults.upstreamRetryAfterMaxMilliseconds)).")
    var retryAfterMax: Int?

    @Option(name: .customLong("reply-cache-bytes"), help: "Bytes of finished replies kept to answer repeated reads at once; 0 turns it off (env RNM_REPLY_CACHE_BYTES, default \(Defaults.replyCacheBytes)).")
    var replyCacheBytes: Int?

    /// The options every process takes.
    @OptionGroup public var common: CommonOptions

    public init() {}

    /// The configuration in force: each flag, else its environment variable, else its default.
    public func resolve() throws -> CachingServiceConfiguration {
        CachingServiceConfiguration(
            socketPath: Spec.socketSetting.resolve(socket, default: DefaultPaths.socket(for: Spec.name)),
            databasePath: Spec.databaseSetting.resolve(database, default: DefaultPaths.database("\(Spec.name.rawValue).sqlite")),
            upstreamURL: Spec.upstreamSetting.resolve(upstreamURL, default: Spec.defaultUpstreamURL),
            upstreamTimeoutMilliseconds: try Setting.upstreamTimeoutMilliseconds.resolveInteger(upstreamTimeout, default: 5000, range: 1...600_000),
            maxAgeSeconds: try Spec.maxAgeSetting.resolveInteger(maxAge, default: Spec.defaultMaxAge),
            maxParamBytes: try Setting.maxParamBytes.resolveInteger(maxParamBytes, default: Defaults.maxParamBytes, range: 16...65_536),
            upstreamMaxBytes: try Setting.upstreamMaxBytes.resolveInteger(upstreamMaxBytes, default: Defaults.upstreamMaxBytes,
                                                                          range: 65_536...Int(Int32.max)),
            replyCacheBytes: try Setting.replyCacheBytes.resolveInteger(replyCacheBytes, default: Defaults.replyCacheBytes, range: 0...1_073_741_824),
            limits: try common.resolvedServerLimits(defaultMaxInFlightPerConnection: Defaults.serviceMaxInFlightPerConnection,
                                                    defaultConnectionBufferBytes: Defaults.serviceConnectionBufferBytes),
            retryMaxMilliseconds: try Setting.upstreamRetryMaxMilliseconds.resolveInteger(
                retryMax, default: Defaults.upstreamRetryMaxMilliseconds, range: 100...3_600_000),
            retryAfterMaxMilliseconds: try Setting.upstreamRetryAfterMaxMilliseconds.resolveInteger(
                retryAfterMax, default: Defaults.upstreamRetryAfterMaxMilliseconds, range: 0...86_400_000)
        )
    }
}
