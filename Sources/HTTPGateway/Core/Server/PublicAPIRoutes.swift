import Hummingbird
import NIOCore
import RnmAPI
import ServiceRuntime
import Telemetry

/// The HTTPGateway's route table: the Rick and Morty API's paths under `/api` and its
/// `/graphql`, Hipo's `/search`, every process's `/metrics`, and the web app (`/`, `/app/…`,
/// ``WebApp``). Paths match case-insensitively, with or without a trailing
/// slash, as Express matches them; HEAD is answered wherever GET is.
enum PublicAPIRoutes {
    /// The paths that take POST (GraphQL's reads); every other path only reads with GET.
    static let postPaths: Set<String> = ["/graphql"]
    /// Every process's metrics, for Prometheus (not a public API: no CORS).
    static let metricsPath = "/metrics"
    /// The probes of a load balancer or the kubelet (``Probes``).
    static let livenessPath = "/livez"
    static let readinessPath = "/readyz"
    /// The paths that are not a public API: no other origin's page may read them, and no
    /// cache keeps or shares their answers.
    static let privatePaths: Set<String> = [metricsPath, livenessPath, readinessPath]

    /// Whether `path` is one of the public APIs' (not the web app's, not a private one): what
    /// any origin may read, and what the micro-cache may keep.
    static func isPublicAPI(_ path: String) -> Bool {
        !WebApp.owns(path) && !privatePaths.contains(routePath(path))
    }

    /// `path` as the router matches it: lowercased, without a trailing slash.
    static func routePath(_ path: String) -> String {
        let lowered = path.lowercased()
        return lowered.count > 1 && lowered.hasSuffix("/") ? String(lowered.dropLast()) : lowered
    }

    /// Whether `path` takes POST (one of ``postPaths``, matched as the router matches).
    static func takesPost(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { takesPost(target: UnsafeRawBufferPointer($0)) }
    }

    /// Whether the path of `target` (a request target's bytes, before any query) takes POST:
    /// ``routePath(_:)``'s matching (any letter case, a trailing slash or not) without making a
    /// string, for ``RawRequestHead``, which reads every request's head before NIO's decoder.
    static func takesPost(target: UnsafeRawBufferPointer) -> Bool {
        var end = target.firstIndex(of: UInt8(ascii: "?")) ?? target.count
        if end > 1, target[end - 1] == UInt8(ascii: "/") { end -= 1 }
        // `| 0x20` lowers an ASCII letter; the paths are lowercase letters and `/` (0x2F, which it
        // keeps), and a target holds no control byte (0x0F would read as `/`).
        return postPathBytes.contains { path in
            path.count == end && zip(path, target).allSatisfy { $0 == $1 | 0x20 }
        }
    }

    private static let postPathBytes = postPaths.map { Array($0.utf8) }

    /// The methods `path` answers (its `Allow`): GET and HEAD, and POST where it reads with it.
    static func allowed(_ path: String) -> String {
        takesPost(path) ? "GET, HEAD, POST" : "GET, HEAD"
    }

    /// The service whose data the answers of `path` are made of (what the micro-cache asks
    /// ``DataVersions`` about): `/api/…` and GraphQL's (the Rick and Morty API's records) the
    /// CharacterService's, `/search` the UniversityService's; nil for every other path.
    static func service(answering path: String) -> ServiceName? {
        let route = routePath(path)
        if route == "/search" { return .universities }
        return route.hasPrefix("/api/") || postPaths.contains(route) ? .characters : nil
    }

    static func router(
        endpoints: RickAndMortyEndpoints, universities: UniversitySearch, graphQL: GraphQLEndpoint,
        maxURLBytes: Int, cache: ResponseCache, metrics: HTTPMetrics, webApp: WebApp,
        scrape: SharedScrape?, probes: Probes, proxies: TrustedProxies
    ) -> Router<PublicRequestContext> {
        let router = Router(
            context: PublicRequestContext.self, options: [.autoGenerateHeadEndpoints, .caseInsensitive])
        router.add(middleware: ObservabilityMiddleware(metrics: metrics, proxies: proxies))
        router.add(middleware: LogRequestsMiddleware(.info))
        router.add(middleware: PublicAPIMiddleware(maxURLBytes: maxURLBytes))
        router.add(middleware: WebAppMiddleware(maxURLBytes: maxURLBytes))
        router.add(middleware: ResponseCacheMiddleware(cache: cache, hits: metrics.cacheHits))
        webApp.register(on: router)

        router.get("api") { _, _ in endpoints.root() }
        for kind in RecordKind.allCases {
            router.get("api/\(kind.rawValue)") { request, _ in
                // `next`/`prev` repeat the path as asked, trailing slash included.
                let path = String(request.uri.path.dropFirst("/api".count))
                return await endpoints.list(kind, path: path, query: PublicQuery(request.uri.query))
            }
            router.get("api/\(kind.rawValue)/:id") { _, context in
                await endpoints.byID(
                    kind, segment: PublicQuery.decode(context.parameters.get("id") ?? "", plusAsSpace: false))
            }
        }
        router.get("api/character/avatar") { _, _ in
            PublicResponse.error(RickAndMortyEndpoints.nothingHere, status: .notFound)
        }
        router.get("api/character/avatar/:file") { _, context in
            await endpoints.avatar(file: context.parameters.get("file") ?? "")
        }
        // The client as ObservabilityMiddleware found it (behind a trusted proxy, the one it names).
        router.get("graphql") { request, context in
            await graphQL.respond(to: request, client: RequestClient.current ?? context.client)
        }
        router.post("graphql") { request, context in
            await graphQL.respond(to: request, client: RequestClient.current ?? context.client)
        }
        router.get("search") { request, _ in
            await universities.search(PublicQuery(request.uri.query))
        }
        router.get(RouterPath(livenessPath)) { _, _ in probes.liveness() }
        router.get(RouterPath(readinessPath)) { _, _ in await probes.readiness() }
        // On the public port unless RNM_HTTP_METRICS_ADDRESS gives it one of its own.
        if let scrape { addMetrics(to: router, scrape: scrape) }
        return router
    }

    /// Every process's metrics, for Prometheus (never cached: each scrape asks them all).
    static func addMetrics<Context: RequestContext>(to router: Router<Context>, scrape: SharedScrape) {
        router.get(RouterPath(metricsPath)) { _, _ in
            Response(
                status: .ok, headers: [.contentType: MetricsScrape.contentType, .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: await scrape.text())))
        }
    }
}
