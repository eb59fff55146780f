import ArgumentParser
import RnmAPI
import ServiceRuntime

/// `HTTPGateway`: the public APIs' REST shapes over HTTP, answered through the Gateway.
public struct HTTPGatewayCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "HTTPGateway",
        abstract: "Serves the Rick and Morty and Hipo universities REST APIs over HTTP from rnm's caches, through the Gateway."
    )

    @Option(help: "host:port to listen on (env RNM_HTTP_ADDRESS, default \(Defaults.httpAddress)).")
    var address: String?

    @Option(name: .customLong("public-url"), help: "Base URL written into every link (env RNM_PUBLIC_URL, default \(Defaults.publicURL)).")
    var publicURL: String?

    @Option(name: .customLong("gateway-socket"), help: "The Gateway's socket (env RNM_GATEWAY_SOCKET).")
    var gatewaySocket: String?

    @Option(name: .customLong("request-timeout-ms"), help: "Deadline of one call to the Gateway (env RNM_REQUEST_TIMEOUT_MS, default 15000).")
    var requestTimeout: Int?

    @Option(name: .customLong("max-url-bytes"), help: "Longest request target; longer is 414 (env RNM_HTTP_MAX_URL_BYTES, default \(Defaults.httpMaxURLBytes)).")
    var maxURLBytes: Int?

    @Option(name: .customLong("max-header-bytes"), help: "Header bytes of one request (env RNM_HTTP_MAX_HEADER_BYTES, default \(Defaults.httpMaxHeaderBytes)).")
    var maxHeaderBytes: Int?

    @Option(name: .customLong("idle-timeout-ms"), help: "An idle keep-alive connection is closed after it (env RNM_HTTP_IDLE_TIMEOUT_MS, default \(Defaults.httpIdleTimeoutMilliseconds)).")
    var idleTimeout: Int?

    @Option(name: .customLong("cache-ms"), help: "How long an answer fresh from rnm's cache is answered again from memory; 0 turns it off (env RNM_HTTP_CACHE_MS, default \(Defaults.httpCacheMilliseconds)).")
    var cacheMilliseconds: Int?

    @Option(name: .customLong("cache-bytes"), help: "Bytes of such answers kept (env RNM_HTTP_CACHE_BYTES, default \(Defaults.httpCacheBytes)).")
    var cacheBytes: Int?

    @OptionGroup var common: CommonOptions

    public init() {}

    public func run() async throws {
        let logger = try common.makeLogger(label: "rnm.http")
        let addressText = Setting.httpAddress.resolve(address, default: Defaults.httpAddress)
        guard let (host, port) = HTTPGatewayConfiguration.parseAddress(addressText) else {
            throw ValidationError("RNM_HTTP_ADDRESS / --address must be host:port, got \"\(addressText)\"")
        }
        let configuration = HTTPGatewayConfiguration(
            host: host, port: port,
            publicURL: Setting.publicURL.resolve(publicURL, default: Defaults.publicURL),
            gatewaySocketPath: Setting.gatewaySocket.resolve(gatewaySocket, default: DefaultPaths.socket(for: .gateway)),
            requestTimeout: .milliseconds(try Setting.requestTimeoutMilliseconds.resolveInteger(requestTimeout, default: 15000, range: 1...3_600_000)),
            maxURLBytes: try Setting.httpMaxURLBytes.resolveInteger(maxURLBytes, default: Defaults.httpMaxURLBytes, range: 64...1_048_576),
            maxHeaderBytes: try Setting.httpMaxHeaderBytes.resolveInteger(maxHeaderBytes, default: Defaults.httpMaxHeaderBytes, range: 1024...1_048_576),
            idleTimeout: .milliseconds(try Setting.httpIdleTimeoutMilliseconds.resolveInteger(idleTimeout, default: Defaults.httpIdleTimeoutMilliseconds, range: 100...3_600_000)),
            maxFrameBytes: try common.resolvedMaxFrameBytes(),
            cacheTTL: .milliseconds(try Setting.httpCacheMilliseconds.resolveInteger(cacheMilliseconds, default: Defaults.httpCacheMilliseconds, range: 0...3_600_000)),
            cacheBytes: try Setting.httpCacheBytes.resolveInteger(cacheBytes, default: Defaults.httpCacheBytes, range: 0...1_073_741_824)
        )
        try await ServiceRunner.run(HTTPGatewayApp.build(configuration: configuration, logger: logger), logger: logger)
    }
}
