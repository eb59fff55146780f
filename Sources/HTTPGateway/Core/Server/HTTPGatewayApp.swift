import Hummingbird
import HummingbirdCore
import Logging
import Messaging
import NIOCore
import RnmAPI
import ServiceLifecycle
import ServiceRuntime
import Telemetry

/// Everything the HTTPGateway needs to start.
struct HTTPGatewayConfiguration: Sendable {
    /// Where to listen; port 0 picks a free one (tests).
    var host: String = Self.defaultAddress.host
    var port: Int = Self.defaultAddress.port
    /// `RNM_PUBLIC_URL`, without a trailing slash.
    var publicURL: String = Defaults.publicURL
    var gatewaySocketPath: String
    /// Deadline of one call to the Gateway.
    var requestTimeout: Duration = .milliseconds(Defaults.requestTimeoutMilliseconds)
    /// How long the Gateway waits for a service's health (`RNM_HEALTH_TIMEOUT_MS`): `/readyz`
    /// waits a little longer for its answer.
    var healthTimeout: Duration = .milliseconds(Defaults.healthTimeoutMilliseconds)
    var maxURLBytes: Int = Defaults.httpMaxURLBytes
    var maxHeaderBytes: Int = Defaults.httpMaxHeaderBytes
    var idleTimeout: Duration = .milliseconds(Defaults.httpIdleTimeoutMilliseconds)
    var bodyTimeout: Duration = .milliseconds(Defaults.httpBodyTimeoutMilliseconds)
    var sendTimeout: Duration = .milliseconds(Defaults.httpSendTimeoutMilliseconds)
    var maxConnections: Int = Defaults.httpMaxConnections
    var maxConnectionsPerClient: Int = Defaults.httpMaxConnectionsPerClient
    var maxFrameBytes: Int = Defaults.maxFrameBytes
    /// The micro-cache of fresh answers (``ResponseCache``).
    var cacheTTL: Duration = .milliseconds(Defaults.httpCacheMilliseconds)
    var cacheBytes: Int = Defaults.httpCacheBytes
    /// What one GraphQL request may cost.
    var graphQL = GraphQLLimits()
    /// Tests only: every query run by the GraphQL library's executor, to hold rnm's
    /// (``RecordExecutor``) to the library's answers. Not a setting: users always get rnm's.
    var graphQLLibraryExecutor = false
    /// Its metrics (`GET /metrics`, with the other processes').
    var instruments = Instruments()
    /// Where `GET /metrics` is served apart from the public port (`RNM_HTTP_METRICS_ADDRESS`);
    /// nil: on the public port.
    var metricsAddress: (host: String, port: Int)?
    /// Proxies whose forwarding headers name the client (`RNM_HTTP_TRUSTED_PROXIES`).
    var trustedProxies = TrustedProxies.none
    /// How long the front keeps answering after SIGTERM, not ready (`RNM_HTTP_DRAIN_MS`).
    var drain: Duration = .milliseconds(Defaults.httpDrainMilliseconds)

    /// The settings table's `RNM_HTTP_ADDRESS`.
    static var defaultAddress: (host: String, port: Int) {
        // The table's default parses (SettingsTableTests resolves every default).
        parseAddress(Defaults.httpAddress)!
    }

    /// `host:port` as `RNM_HTTP_ADDRESS` gives it (`[::1]:8080` for an IPv6 address).
    static func parseAddress(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        var host = Substring(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        return host.isEmpty ? nil : (String(host), port)
    }
}

/// Builds the HTTPGateway from its configuration; tests call this with test settings.
enum HTTPGatewayApp {
    /// The link to the Gateway, then the HTTP server (shut down in reverse: the server first).
    /// `onListening` gets the port the server is bound to.
    static func build(
        configuration: HTTPGatewayConfiguration, logger: Logger,
        onListening: (@Sendable (Int) async -> Void)? = nil,
        onMetricsListening: (@Sendable (Int) async -> Void)? = nil
    ) -> [any Service] {
        // Every HTTP client's requests share this link: the Gateway is told that it reads every
        // reply, so that replies piling up hold the link back instead of being dropped (a
        // dropped one would be another client's answer).
        let timeout = configuration.requestTimeout
        let slots = WaitingSlots(size: Defaults.gatewayMaxInFlightPerConnection)
        let gateway = ServiceLink(
            service: .gateway, socketPath: configuration.gatewaySocketPath,
            maxFrameBytes: configuration.maxFrameBytes, logger: logger
        ) { client in
            do {
                let mode = try await client.call(
                    RPCMethods.gatewayHello, GatewayHello(client: "HTTPGateway", holdReplies: true), timeout: timeout)
                // One under the Gateway's limit: it counts a request until its reply is handed
                // to the connection, which may come just after the reply reached this end.
                // And the data versions' calls, which take no slot (``DataVersions``).
                if let maxInFlight = mode.maxInFlight {
                    slots.resize(to: maxInFlight - 1 - DataVersions.services.count)
                }
            } catch let error as RPCError where error.code == .methodNotFound {
                // A Gateway older than gateway.hello: the link works, its replies may be dropped.
                logger.warning("the Gateway does not know gateway.hello; its replies may be dropped when many wait")
            }
        }
        let base =
            configuration.publicURL.hasSuffix("/")
            ? String(configuration.publicURL.dropLast()) : configuration.publicURL
        let reader = GatewayReader(gateway: gateway, timeout: configuration.requestTimeout, slots: slots)
        let shapes = PublicShapes(apiBase: base + "/api")
        // Asked outside the slots of the clients' calls (one small call a service at a time),
        // so that they neither wait behind them nor keep IdleTrim from seeing the process quiet.
        // With no byte for the micro-cache there is nothing to keep; under its minimum TTL
        // ``DataVersions/run()`` asks nothing (that rule is kept there only).
        let ttl = configuration.cacheTTL
        let versions =
            configuration.cacheBytes > 0
            ? DataVersions(ttl: ttl, logger: logger) { method in
                try await gateway.client().call(method, NoParams(), timeout: min(timeout, ttl))
            } : nil
        let cache = ResponseCache(ttl: ttl, maxBytes: configuration.cacheBytes, versions: versions)
        let instruments = configuration.instruments
        // GraphQL's CPU work, off the event loops; stopped last (after the server).
        let workers = GraphQLWorkers()
        let httpMetrics = HTTPMetrics(instruments: instruments)
        let drain = Drain()
        let probes = Probes(reader: reader, drain: drain, healthTimeout: configuration.healthTimeout)
        let scrape = SharedScrape {
            await MetricsScrape.collect(own: [.init(process: "http", exposition: instruments.exposition())]) {
                try await reader.call($0, NoParams())
            }
        }
        let router = PublicAPIRoutes.router(
            endpoints: RickAndMortyEndpoints(reader: reader, shapes: shapes, logger: logger),
            universities: UniversitySearch(reader: reader, logger: logger),
            graphQL: GraphQLEndpoint(
                schema: RickAndMortySchema.schema, reader: reader, shapes: shapes, limits: configuration.graphQL,
                answers: cache, hits: httpMetrics.cacheHits,
                admission: GraphQLAdmission(limits: configuration.graphQL, instruments: instruments),
                workers: workers, logger: logger, libraryExecutor: configuration.graphQLLibraryExecutor),
            maxURLBytes: configuration.maxURLBytes,
            cache: cache, metrics: httpMetrics,
            webApp: WebApp(reader: reader, publicURL: base, logger: logger),
            scrape: configuration.metricsAddress == nil ? scrape : nil,
            probes: probes, proxies: configuration.trustedProxies)
        let trim = IdleTrim(trims: RnmMetrics.memoryTrims.counter(in: instruments)) {
            let usage = slots.usage
            return (usage.acquired, usage.inUse > 0)
        }
        let gate = ConnectionGate(
            maxConnections: configuration.maxConnections, maxPerClient: configuration.maxConnectionsPerClient,
            proxies: configuration.trustedProxies, trim: trim, instruments: instruments)
        let connections = RnmMetrics.httpConnections.gauge(in: instruments)
        instruments.onCollect { connections.record(gate.openConnections) }
        let sendTimeout = TimeAmount(configuration.sendTimeout)
        let sendTimeouts = RnmMetrics.httpSendTimeouts.counter(in: instruments)
        let (maxHeaderBytes, maxURLBytes) = (configuration.maxHeaderBytes, configuration.maxURLBytes)
        let maxBodyBytes = configuration.graphQL.maxQueryBytes
        let (idleTimeout, bodyTimeout) = (configuration.idleTimeout, configuration.bodyTimeout)
        let bodyTimeouts = RnmMetrics.httpBodyTimeouts.counter(in: instruments)
        let makeHits: @Sendable () -> MicroCacheHitHandler = {
            MicroCacheHitHandler(
                cache: cache, metrics: httpMetrics, drain: drain, maxHeaderBytes: maxHeaderBytes,
                maxURLBytes: maxURLBytes, maxBodyBytes: maxBodyBytes, idleTimeout: idleTimeout,
                bodyTimeout: bodyTimeout, bodyTimeouts: bodyTimeouts)
        }
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [
                ConnectionLimitHandler(gate: gate), SendTimeoutHandler(timeout: sendTimeout, closed: sendTimeouts),
                ParseErrorBodyHandler(maxHeaderBytes: configuration.maxHeaderBytes),
                // Micro-cache hits answered from the request's bytes (issue 40), or where they are
                // read when they must go through Hummingbird's side (issue 28).
                MicroCacheFastPathInstaller(drain: drain, hits: makeHits) {
                    MicroCacheFastPath(cache: cache, metrics: httpMetrics)
                },
            ],
            // Kept by ``MicroCacheHitHandler``, which answers requests Hummingbird does not see.
            idleTimeout: nil,
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: configuration.maxHeaderBytes, maxHeaderListSize: configuration.maxHeaderBytes)
        )
        let application = Application(
            router: router,
            server: .http1(configuration: http1),
            // The listen queue as long as the connections allowed (at least Hummingbird's 256):
            // a burst of connects within RNM_HTTP_MAX_CONNECTIONS is queued, then answered or
            // refused with a 503, not dropped for the clients to retry a second later. The
            // kernel caps it at net.core.somaxconn.
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: nil,
                backlog: max(configuration.maxConnections, 256)),
            onServerRunning: { channel in
                logger.info(
                    "listening",
                    metadata: ["address": "\(channel.localAddress?.description ?? "?")", "publicURL": "\(base)"])
                await onListening?(channel.localAddress?.port ?? configuration.port)
            },
            logger: logger
        )
        // Stopped in reverse: the drain first, then the server, then the link to the Gateway.
        var services: [any Service] = [workers, gateway] + (versions.map { [$0] } ?? []) + [trim, application]
        if let address = configuration.metricsAddress {
            services.append(
                MetricsListener.make(
                    address: address, scrape: scrape, probes: probes, logger: logger,
                    onListening: onMetricsListening))
        }
        services.append(DrainService(drain: drain, duration: configuration.drain, logger: logger))
        return services
    }
}
