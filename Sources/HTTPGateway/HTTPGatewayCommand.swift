import ArgumentParser
import RnmAPI
import ServiceRuntime

/// `HTTPGateway`: the public APIs' REST shapes over HTTP, answered through the Gateway.
public struct HTTPGatewayCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "HTTPGateway",
        abstract:
            """
            Serves the Rick and Morty and Hipo universities REST APIs over HTTP from rnm's caches, through the \
            Gateway.
            """
    )

    @Option(name: Setting.httpAddress.flagName, help: Setting.httpAddress.help)
    var address: String?

    @Option(name: Setting.publicURL.flagName, help: Setting.publicURL.help)
    var publicURL: String?

    @Option(name: Setting.gatewaySocket.flagName(in: .httpGateway), help: Setting.gatewaySocket.help)
    var gatewaySocket: String?

    @Option(name: Setting.requestTimeoutMilliseconds.flagName, help: Setting.requestTimeoutMilliseconds.help)
    var requestTimeout: Int?

    @Option(name: Setting.healthTimeoutMilliseconds.flagName, help: Setting.healthTimeoutMilliseconds.help)
    var healthTimeout: Int?

    @Option(name: Setting.httpMaxURLBytes.flagName, help: Setting.httpMaxURLBytes.help)
    var maxURLBytes: Int?

    @Option(name: Setting.httpMaxHeaderBytes.flagName, help: Setting.httpMaxHeaderBytes.help)
    var maxHeaderBytes: Int?

    @Option(name: Setting.httpIdleTimeoutMilliseconds.flagName, help: Setting.httpIdleTimeoutMilliseconds.help)
    var idleTimeout: Int?

    @Option(name: Setting.httpBodyTimeoutMilliseconds.flagName, help: Setting.httpBodyTimeoutMilliseconds.help)
    var bodyTimeout: Int?

    @Option(name: Setting.httpSendTimeoutMilliseconds.flagName, help: Setting.httpSendTimeoutMilliseconds.help)
    var sendTimeout: Int?

    @Option(name: Setting.httpMaxConnections.flagName, help: Setting.httpMaxConnections.help)
    var maxConnections: Int?

    @Option(name: Setting.httpMaxConnectionsPerClient.flagName, help: Setting.httpMaxConnectionsPerClient.help)
    var maxConnectionsPerClient: Int?

    @Option(name: Setting.httpCacheMilliseconds.flagName, help: Setting.httpCacheMilliseconds.help)
    var cacheMilliseconds: Int?

    @Option(name: Setting.httpCacheBytes.flagName, help: Setting.httpCacheBytes.help)
    var cacheBytes: Int?

    @Option(name: Setting.httpMetricsAddress.flagName, help: Setting.httpMetricsAddress.help)
    var metricsAddress: String?

    @Option(name: Setting.httpTrustedProxies.flagName, help: Setting.httpTrustedProxies.help)
    var trustedProxies: String?

    @Option(name: Setting.httpDrainMilliseconds.flagName, help: Setting.httpDrainMilliseconds.help)
    var drain: Int?

    @OptionGroup var graphQL: GraphQLOptions

    @OptionGroup var common: CommonOptions

    public init() {}

    public func run() async throws {
        let logger = try common.makeLogger(label: "rnm.http")
        let addressText = Setting.httpAddress.resolve(address)
        let (host, port) = try Self.address(addressText, .httpAddress)
        let metrics = try (metricsAddress ?? Setting.httpMetricsAddress.value()).map {
            try Self.address($0, .httpMetricsAddress)
        }
        let proxies: TrustedProxies
        switch TrustedProxies.parse(Setting.httpTrustedProxies.resolve(trustedProxies, default: "")) {
        case .success(let parsed): proxies = parsed
        case .failure(let failure):
            throw ValidationError(
                "\(Setting.httpTrustedProxies.named(in: .httpGateway)): \"\(failure.entry)\" is neither an address "
                    + "nor a CIDR block (192.0.2.0/24, 2001:db8::/32)")
        }
        let drainTime = Duration.milliseconds(try Setting.httpDrainMilliseconds.resolveInteger(drain))
        let configuration = HTTPGatewayConfiguration(
            host: host, port: port,
            publicURL: Setting.publicURL.resolve(publicURL, default: Self.publicURL(host: host, port: port)),
            gatewaySocketPath: DefaultPaths.gatewaySocket(flag: gatewaySocket),
            requestTimeout: .milliseconds(try Setting.requestTimeoutMilliseconds.resolveInteger(requestTimeout)),
            healthTimeout: .milliseconds(try Setting.healthTimeoutMilliseconds.resolveInteger(healthTimeout)),
            maxURLBytes: try Setting.httpMaxURLBytes.resolveInteger(maxURLBytes),
            maxHeaderBytes: try Setting.httpMaxHeaderBytes.resolveInteger(maxHeaderBytes),
            idleTimeout: .milliseconds(try Setting.httpIdleTimeoutMilliseconds.resolveInteger(idleTimeout)),
            bodyTimeout: .milliseconds(try Setting.httpBodyTimeoutMilliseconds.resolveInteger(bodyTimeout)),
            sendTimeout: .milliseconds(try Setting.httpSendTimeoutMilliseconds.resolveInteger(sendTimeout)),
            maxConnections: try Setting.httpMaxConnections.resolveInteger(maxConnections),
            maxConnectionsPerClient: try Setting.httpMaxConnectionsPerClient.resolveInteger(maxConnectionsPerClient),
            maxFrameBytes: try common.resolvedMaxFrameBytes(),
            cacheTTL: .milliseconds(try Setting.httpCacheMilliseconds.resolveInteger(cacheMilliseconds)),
            cacheBytes: try Setting.httpCacheBytes.resolveInteger(cacheBytes),
            graphQL: try graphQL.resolve(),
            instruments: try common.makeInstruments(),
            metricsAddress: metrics, trustedProxies: proxies, drain: drainTime
        )
        do {
            // The drain comes before the usual time to finish what is in flight.
            try await ServiceRunner.run(
                HTTPGatewayApp.build(configuration: configuration, logger: logger), logger: logger,
                gracefulShutdown: drainTime + ServiceRunner.maximumGracefulShutdown)
        } catch {
            throw ListenError(error, address: addressText) ?? error
        }
    }

    /// `text` as `host:port`, or the error naming the setting that gave it.
    /// The links' base when `RNM_PUBLIC_URL` is not set: the address the front listens on (a
    /// wildcard host read as this machine's loopback), so that moving the front with
    /// `RNM_HTTP_ADDRESS` alone does not leave its links pointing at the old port.
    static func publicURL(host: String, port: Int) -> String {
        let reachable = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host
        return "http://\(reachable.contains(":") ? "[\(reachable)]" : reachable):\(port)"
    }

    private static func address(_ text: String, _ setting: Setting) throws -> (host: String, port: Int) {
        guard let parsed = HTTPGatewayConfiguration.parseAddress(text) else {
            throw ValidationError("\(setting.named(in: .httpGateway)) must be host:port, got \"\(text)\"")
        }
        return parsed
    }
}
