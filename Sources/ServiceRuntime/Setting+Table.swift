import Messaging

extension Setting {
    /// The table of settings: each one's summary, default, range, readers and flag, written
    /// here once (scripts/settings-doc writes docs/SETTINGS.md's table and settings.env's list from it).
    public var spec: SettingSpec {
        switch self {
        case .gatewaySocket:
            SettingSpec(
                "The Gateway's socket",
                default: .described("$XDG_RUNTIME_DIR/rnm/gateway.sock or /tmp/rnm-<uid>/gateway.sock"),
                readers: [.gateway, .httpGateway, .rnmctl],
                flagIn: [.gateway: "socket", .httpGateway: "gateway-socket", .rnmctl: "socket"])
        case .charactersSocket:
            SettingSpec(
                "The CharacterService's socket", default: .described("characters.sock beside the Gateway's"),
                readers: [.characterService, .gateway],
                flagIn: [.characterService: "socket", .gateway: "characters-socket"])
        case .universitiesSocket:
            SettingSpec(
                "The UniversityService's socket", default: .described("universities.sock beside the Gateway's"),
                readers: [.universityService, .gateway],
                flagIn: [.universityService: "socket", .gateway: "universities-socket"])
        case .charactersDatabase:
            SettingSpec(
                "The CharacterService's SQLite cache file",
                default: .described("$XDG_DATA_HOME/rnm/characters.sqlite or ~/.local/share/rnm/characters.sqlite"),
                readers: [.characterService], flag: "database")
        case .favoritesDatabase:
            SettingSpec(
                "The CharacterService's favorites (user data), apart from the rebuildable cache",
                default: .described("favorites.sqlite in the folder of RNM_CHARACTERS_DB"),
                readers: [.characterService], flag: "favorites-database")
        case .favoritesURL:
            SettingSpec(
                "A PostgreSQL database (postgres://user:password@host:port/database) for the favorites, "
                    + "shared by every CharacterService replica; empty for the SQLite file",
                default: .described("empty: the SQLite file of RNM_FAVORITES_DB"), readers: [.characterService],
                flag: "favorites-url")
        case .universitiesDatabase:
            SettingSpec(
                "The UniversityService's SQLite cache file",
                default: .described("$XDG_DATA_HOME/rnm/universities.sqlite or ~/.local/share/rnm/universities.sqlite"),
                readers: [.universityService], flag: "database")
        case .rickAndMortyURL:
            SettingSpec(
                "The Rick and Morty API's base URL", default: .text("https://rickandmortyapi.com/api"),
                readers: [.characterService], flag: "upstream-url")
        case .universitiesURL:
            SettingSpec(
                "The Hipo universities API's base URL", default: .text("http://universities.hipolabs.com"),
                readers: [.universityService], flag: "upstream-url")
        case .upstreamTimeoutMilliseconds:
            SettingSpec(
                "Timeout of one upstream request, in ms", default: .integer(5000), range: 1...600_000,
                readers: .services, flag: "upstream-timeout-ms")
        case .upstreamRetryMaxMilliseconds:
            SettingSpec(
                "Longest wait between probes of a failing upstream, in ms", default: .integer(5000),
                range: 100...3_600_000, readers: .services, flag: "upstream-retry-max-ms")
        case .upstreamRetryAfterMaxMilliseconds:
            SettingSpec(
                "Longest Retry-After obeyed, in ms", default: .integer(60000), range: 0...86_400_000,
                readers: .services, flag: "upstream-retry-after-max-ms")
        case .charactersMaxAge:
            SettingSpec(
                "Seconds a cached character answer is served without asking the upstream", default: .integer(600),
                range: 0...31_536_000, readers: [.characterService], flag: "max-age")
        case .universitiesMaxAge:
            SettingSpec(
                "Seconds a cached university list is served without asking the upstream (0: always ask first)",
                default: .integer(0), range: 0...31_536_000, readers: [.universityService], flag: "max-age")
        case .charactersStaleWhileRevalidate:
            SettingSpec(
                "Seconds past the max age a stored answer is given at once while it is refreshed in the "
                    + "background; 0 turns it off", default: .integer(600), range: 0...31_536_000,
                readers: [.characterService], flag: "stale-while-revalidate")
        case .requestTimeoutMilliseconds:
            SettingSpec(
                "Deadline of one request, in ms; progress restarts it", default: .integer(15000), range: 1...3_600_000,
                readers: [.gateway, .httpGateway], flag: "request-timeout-ms")
        case .maxFrameBytes:
            SettingSpec(
                "Largest frame payload accepted", default: .integer(WireLimits.maxFrameBytes),
                range: 1...Int(UInt32.max), readers: .servers, flag: "max-frame-bytes")
        case .logLevel:
            SettingSpec(
                "trace, debug, info, notice, warning, error or critical", default: .text("info"), readers: .servers,
                flag: "log-level")
        case .logFormat:
            SettingSpec(
                "text (readable lines) or json (one object per line: time, level, process, message, metadata)",
                default: .text("text"), readers: .servers, flag: "log-format")
        case .metrics:
            SettingSpec(
                "on or off: whether the process records metrics (its metrics method, GET /metrics)",
                default: .text("on"), readers: .servers, flag: "metrics")
        case .frameTimeoutMilliseconds:
            SettingSpec(
                "Time a started frame may stay incomplete before the connection is closed, in ms",
                default: .integer(WireLimits.frameTimeoutMilliseconds), range: 1...3_600_000, readers: .rpcServers,
                flag: "frame-timeout-ms")
        case .maxConnections:
            SettingSpec(
                "Client connections a process keeps open; past it a new one is sent -32005 and closed",
                default: .integer(WireLimits.maxConnections), range: 1...1_000_000, readers: .rpcServers,
                flag: "max-connections")
        case .maxUnreadBytes:
            // The Gateway's own memory for clients that do not read, over all of them.
            SettingSpec(
                "Bytes of replies waiting unread over all the Gateway's connections; past it a client with "
                    + "replies waiting has the next dropped (-32005)",
                default: .integer(WireLimits.maxUnreadBytes), range: 1_048_576...Int(Int32.max), readers: [.gateway],
                flag: "max-unread-bytes")
        case .unreadTimeoutMilliseconds:
            // As the HTTP front's RNM_HTTP_SEND_TIMEOUT_MS (nginx's send_timeout).
            SettingSpec(
                "A client that takes none of its replies for this long is disconnected (it is not read "
                    + "meanwhile), in ms",
                default: .integer(WireLimits.unreadTimeoutMilliseconds), range: 100...3_600_000, readers: .rpcServers,
                flag: "unread-timeout-ms")
        case .connectionBufferBytes:
            // A service's is 16 Gateway clients' worth: no one client of the Gateway can fill
            // the service link and stall the others.
            SettingSpec(
                "Bytes one client connection may hold: requests being served and replies not yet read; "
                    + "past it the connection is not read",
                default: .perProcess(
                    gateway: WireLimits.connectionBufferBytes,
                    service: 16 * WireLimits.connectionBufferBytes),
                range: 65_536...Int(Int32.max), readers: .rpcServers, flag: "connection-buffer-bytes")
        case .maxInFlightPerConnection:
            // The Gateway's is a client's fair share of a service link; a service's at least the
            // Gateway's RNM_MAX_IN_FLIGHT and one request a connection past it (a client with
            // nothing else in flight is served past it), so that it never refuses the Gateway's link.
            SettingSpec(
                "Requests one connection may have in flight; more get -32005",
                default: .perProcess(gateway: 256, service: 2 * WireLimits.maxInFlightPerConnection),
                range: 1...1_000_000, readers: .rpcServers, flag: "max-in-flight-per-connection")
        case .maxInFlight:
            SettingSpec(
                "Requests in flight in the Gateway over all clients; more get -32005", default: .integer(4096),
                range: 1...1_000_000, readers: [.gateway], flag: "max-in-flight")
        case .maxParamBytes:
            SettingSpec(
                "Longest string parameter (names, filters, countries), in bytes", default: .integer(256),
                range: 16...65_536, readers: .services, flag: "max-param-bytes")
        case .upstreamMaxBytes:
            SettingSpec(
                "Largest upstream response body, in bytes", default: .integer(16 * 1_048_576),
                range: 65_536...Int(Int32.max), readers: .services, flag: "upstream-max-bytes")
        case .universitiesSyncTimeoutMilliseconds:
            // The real world list is several megabytes: not one ordinary request's 5 s.
            SettingSpec(
                "Time universities.sync may take to download the whole world list, in ms",
                default: .integer(120_000), range: 1000...3_600_000, readers: [.universityService],
                flag: "sync-timeout-ms")
        case .upstreamMaxConnections:
            // libcurl's default is 6 per host; a burst of cold reads then queued past deadlines.
            SettingSpec(
                "Connections a service keeps to its upstream at once; a request waits up to its timeout for one",
                default: .integer(32), range: 1...1024, readers: .services, flag: "upstream-max-connections")
        case .charactersMaxListPages:
            SettingSpec(
                "Cached pages of filtered lists kept, least recently used evicted", default: .integer(5000),
                range: 1...10_000_000, readers: [.characterService], flag: "max-list-pages")
        case .charactersMaxRecords:
            // The real API has 826 characters, 126 locations and 51 episodes: room to grow a
            // hundredfold, while a page claiming millions fails at once instead of a sync
            // fetching (and planning) millions of pages.
            SettingSpec(
                "Records of one kind an upstream list may claim (its info.count); a page claiming more is refused",
                default: .integer(100_000), range: 1...100_000_000, readers: [.characterService], flag: "max-records")
        case .charactersMaxAbsentIDs:
            // A 404 is cacheable (RFC 9111 §4.2.2): 1,100 absent ids once cost 11 upstream
            // requests on every read. About 60 bytes each: 6 MB at the default.
            SettingSpec(
                """
                Ids the upstream said do not exist, remembered for the max age (oldest out first); 0 asks every \
                time
                """,
                default: .integer(100_000), range: 0...10_000_000, readers: [.characterService], flag: "max-absent-ids")
        case .replyCacheBytes:
            // About a thousand characters with their episodes.
            SettingSpec(
                "Bytes of finished replies kept to answer repeated reads at once; 0 turns it off",
                default: .integer(4 * 1_048_576), range: 0...1_073_741_824, readers: .services,
                flag: "reply-cache-bytes")
        case .eventLoops:
            SettingSpec(
                "Event loop threads (the process's tasks run on them too)",
                default: .described("\(EventLoopExecutor.gatewayThreads) in the Gateway, one per core elsewhere"),
                range: 1...256, readers: .servers)
        case .httpAddress:
            SettingSpec(
                "host:port the HTTP front listens on", default: .text("127.0.0.1:8080"),
                readers: [.httpGateway, .rnmctl], flagIn: [.httpGateway: "address"])
        case .publicURL:
            SettingSpec(
                "Base URL written into every link the HTTP front returns", default: .text("http://127.0.0.1:8080"),
                readers: [.httpGateway], flag: "public-url")
        case .httpMaxURLBytes:
            SettingSpec(
                "Longest request target; longer is 414", default: .integer(8192), range: 64...1_048_576,
                readers: [.httpGateway], flag: "max-url-bytes")
        case .httpMaxHeaderBytes:
            SettingSpec(
                "Header bytes of one request", default: .integer(16384), range: 1024...1_048_576,
                readers: [.httpGateway], flag: "max-header-bytes")
        case .httpIdleTimeoutMilliseconds:
            SettingSpec(
                "An idle keep-alive connection is closed after it, in ms", default: .integer(60000),
                range: 100...3_600_000, readers: [.httpGateway], flag: "idle-timeout-ms")
        case .httpSendTimeoutMilliseconds:
            SettingSpec(
                "A client that reads nothing of an answer for this long is disconnected, in ms",
                default: .integer(30000), range: 100...3_600_000, readers: [.httpGateway], flag: "send-timeout-ms")
        case .httpMaxConnections:
            // Well under a container's usual 1,048,576 descriptors, and the kernel's somaxconn.
            SettingSpec(
                "Open HTTP connections in all; past it a new one is answered 503 and closed (also the listen "
                    + "queue's length, at least 256)",
                default: .integer(4096), range: 1...1_000_000, readers: [.httpGateway], flag: "http-max-connections")
        case .httpMaxConnectionsPerClient:
            // A browser opens 6 per host; an app behind one NAT address a few dozen.
            SettingSpec(
                "Open HTTP connections from one client address; past it a new one is answered 503 and closed",
                default: .integer(64), range: 1...1_000_000, readers: [.httpGateway],
                flag: "http-max-connections-per-client")
        case .httpCacheMilliseconds:
            SettingSpec(
                "How long an answer fresh from rnm's cache is answered again from memory, in ms; 0 turns it off",
                default: .integer(1000), range: 0...3_600_000, readers: [.httpGateway], flag: "cache-ms")
        case .httpCacheBytes:
            SettingSpec(
                "Bytes of such answers kept, oldest out first", default: .integer(8 * 1_048_576),
                range: 0...1_073_741_824, readers: [.httpGateway], flag: "cache-bytes")
        case .httpMetricsAddress:
            // In a cluster the public port faces every client: Prometheus scrapes another one.
            SettingSpec(
                "host:port serving GET /metrics on its own (then not on the public port); empty: the public port",
                default: .described("empty"), readers: [.httpGateway], flag: "metrics-address")
        case .httpTrustedProxies:
            SettingSpec(
                """
                Addresses or CIDR blocks (comma-separated) of proxies whose X-Forwarded-For names the client that \
                per-client limits count; empty: none, the peer is the client
                """,
                default: .described("empty"), readers: [.httpGateway], flag: "trusted-proxies")
        case .httpDrainMilliseconds:
            // Kubernetes removes a terminating pod from its Service while the pod still runs:
            // connections keep coming for a few seconds (docs/KUBERNETES.md).
            SettingSpec(
                """
                After SIGTERM, how long the HTTP front keeps answering (GET /readyz 503, every answer \
                Connection: close) before it stops listening and finishes what it holds, in ms
                """,
                default: .integer(0), range: 0...600_000, readers: [.httpGateway], flag: "drain-ms")
        case .graphqlMaxQueryBytes:
            SettingSpec(
                "Longest GraphQL request (POST body or GET query), in bytes; longer is 413",
                default: .integer(16384), range: 256...1_048_576, readers: [.httpGateway],
                flag: "graphql-max-query-bytes")
        case .graphqlMaxDepth:
            // The API's server: graphql-depth-limit `depth(4)` refuses a sixth level of fields.
            SettingSpec(
                "Deepest nesting of a GraphQL query's fields (introspection fields not counted)", default: .integer(5),
                range: 1...100, readers: [.httpGateway], flag: "graphql-max-depth")
        case .graphqlMaxAliases:
            SettingSpec(
                "Aliased fields one GraphQL query may hold", default: .integer(50), range: 0...10_000,
                readers: [.httpGateway], flag: "graphql-max-aliases")
        case .graphqlMaxRecords:
            SettingSpec(
                "Records one GraphQL query may resolve; the query fails before fetching past it",
                default: .integer(10000), range: 1...1_000_000, readers: [.httpGateway], flag: "graphql-max-records")
        case .graphqlMaxCallsInFlight:
            SettingSpec(
                "Gateway calls one GraphQL query may have in flight at once", default: .integer(4), range: 1...256,
                readers: [.httpGateway], flag: "graphql-max-calls-in-flight")
        case .graphqlCacheBytes:
            SettingSpec(
                """
                Bytes of GraphQL query text whose parsed, validated documents are kept (oldest out first), and as \
                many of answers that read no record (introspection); 0 keeps none
                """,
                default: .integer(262_144), range: 0...67_108_864, readers: [.httpGateway], flag: "graphql-cache-bytes")
        case .graphqlMaxTokens:
            // graphql-armor's maxTokens default; every query of the API's own suite holds < 100.
            SettingSpec(
                "Tokens one GraphQL document may hold, counted before it is parsed", default: .integer(1000),
                range: 16...100_000, readers: [.httpGateway], flag: "graphql-max-tokens")
        case .graphqlMaxCost:
            // GraphiQL's introspection query costs 3,912 here (QueryCost); the cost of 5,000 took
            // ~75 ms of CPU in a debug build, ~15 ms in a release build.
            SettingSpec(
                """
                What one GraphQL query may cost before it runs: fields as expanded through fragments, \
                a tenth for each introspection object by the schema's fan-out
                """,
                default: .integer(5000), range: 10...10_000_000, readers: [.httpGateway], flag: "graphql-max-cost")
        case .graphqlMaxRunning:
            SettingSpec(
                "GraphQL requests worked on at once, in all; past it 503 with Retry-After", default: .integer(4),
                range: 1...1024, readers: [.httpGateway], flag: "graphql-max-running")
        case .graphqlMaxRunningPerClient:
            SettingSpec(
                "GraphQL requests of one client address worked on at once; past it 503 with Retry-After",
                default: .integer(2), range: 1...1024, readers: [.httpGateway], flag: "graphql-max-running-per-client")
        case .graphqlTimeoutMilliseconds:
            SettingSpec(
                "How long one GraphQL request may run before it is stopped and answered 504, in ms",
                default: .integer(10000), range: 10...600_000, readers: [.httpGateway], flag: "graphql-timeout-ms")
        case .graphqlMaxRecordsInFlight:
            SettingSpec(
                "Records all GraphQL queries in flight may hold together; past it 503 with Retry-After",
                default: .integer(10000), range: 1...10_000_000, readers: [.httpGateway],
                flag: "graphql-max-records-in-flight")
        }
    }
}
