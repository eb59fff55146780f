import Messaging

extension Setting {
    /// The table of settings (docs/SETTINGS.md, docs/PROTOCOL.md §7): each one's summary,
    /// default and range, written here once.
    public var spec: SettingSpec {
        switch self {
        case .gatewaySocket:
            SettingSpec(
                "The Gateway's socket",
                default: .described("$XDG_RUNTIME_DIR/rnm/gateway.sock or /tmp/rnm-<uid>/gateway.sock"))
        case .charactersSocket:
            SettingSpec("The CharacterService's socket", default: .described("characters.sock beside the Gateway's"))
        case .universitiesSocket:
            SettingSpec("The UniversityService's socket", default: .described("universities.sock beside the Gateway's"))
        case .charactersDatabase:
            SettingSpec(
                "The CharacterService's SQLite cache file",
                default: .described("$XDG_DATA_HOME/rnm/characters.sqlite or ~/.local/share/rnm/characters.sqlite"))
        case .favoritesDatabase:
            SettingSpec(
                "The CharacterService's favorites (user data), apart from the rebuildable cache",
                default: .described("favorites.sqlite in the folder of RNM_CHARACTERS_DB"))
        case .favoritesURL:
            SettingSpec(
                "A PostgreSQL database (postgres://user:password@host:port/database) for the favorites, "
                    + "shared by every CharacterService replica; empty for the SQLite file",
                default: .described("empty: the SQLite file of RNM_FAVORITES_DB"))
        case .universitiesDatabase:
            SettingSpec(
                "The UniversityService's SQLite cache file",
                default: .described("$XDG_DATA_HOME/rnm/universities.sqlite or ~/.local/share/rnm/universities.sqlite"))
        case .rickAndMortyURL:
            SettingSpec("The Rick and Morty API's base URL", default: .text("https://rickandmortyapi.com/api"))
        case .universitiesURL:
            SettingSpec("The Hipo universities API's base URL", default: .text("http://universities.hipolabs.com"))
        case .upstreamTimeoutMilliseconds:
            SettingSpec("Timeout of one upstream request, in ms", default: .integer(5000), range: 1...600_000)
        case .upstreamRetryMaxMilliseconds:
            SettingSpec(
                "Longest wait between probes of a failing upstream, in ms", default: .integer(5000),
                range: 100...3_600_000)
        case .upstreamRetryAfterMaxMilliseconds:
            SettingSpec("Longest Retry-After obeyed, in ms", default: .integer(60000), range: 0...86_400_000)
        case .charactersMaxAge:
            SettingSpec(
                "Seconds a cached character answer is served without asking the upstream", default: .integer(600),
                range: 0...31_536_000)
        case .universitiesMaxAge:
            SettingSpec(
                "Seconds a cached university list is served without asking the upstream (0: always ask first)",
                default: .integer(0), range: 0...31_536_000)
        case .charactersStaleWhileRevalidate:
            SettingSpec(
                "Seconds past the max age a stored answer is given at once while it is refreshed in the "
                    + "background; 0 turns it off", default: .integer(600), range: 0...31_536_000)
        case .requestTimeoutMilliseconds:
            SettingSpec(
                "Deadline of one request, in ms; progress restarts it", default: .integer(15000), range: 1...3_600_000)
        case .maxFrameBytes:
            SettingSpec(
                "Largest frame payload accepted", default: .integer(WireLimits.maxFrameBytes),
                range: 1...Int(UInt32.max))
        case .logLevel:
            SettingSpec("trace, debug, info, notice, warning, error or critical", default: .text("info"))
        case .logFormat:
            SettingSpec(
                "text (readable lines) or json (one object per line: time, level, process, message, metadata)",
                default: .text("text"))
        case .metrics:
            SettingSpec(
                "on or off: whether the process records metrics (its metrics method, GET /metrics)",
                default: .text("on"))
        case .frameTimeoutMilliseconds:
            SettingSpec(
                "Time a started frame may stay incomplete before the connection is closed, in ms",
                default: .integer(WireLimits.frameTimeoutMilliseconds), range: 1...3_600_000)
        case .maxConnections:
            SettingSpec(
                "Client connections a process keeps open; past it a new one is sent -32005 and closed",
                default: .integer(WireLimits.maxConnections), range: 1...1_000_000)
        case .maxUnreadBytes:
            // The Gateway's own memory for clients that do not read, over all of them.
            SettingSpec(
                "Bytes of replies waiting unread over all the Gateway's connections; past it a client with "
                    + "replies waiting has the next dropped (-32005)",
                default: .integer(WireLimits.maxUnreadBytes), range: 1_048_576...Int(Int32.max))
        case .unreadTimeoutMilliseconds:
            // As the HTTP front's RNM_HTTP_SEND_TIMEOUT_MS (nginx's send_timeout).
            SettingSpec(
                "A client that takes none of its replies for this long is disconnected (it is not read "
                    + "meanwhile), in ms",
                default: .integer(30000), range: 100...3_600_000)
        case .connectionBufferBytes:
            // A service's is 16 Gateway clients' worth: no one client of the Gateway can fill
            // the service link and stall the others.
            SettingSpec(
                "Bytes one client connection may hold: requests being served and replies not yet read; "
                    + "past it the connection is not read",
                default: .perProcess(
                    gateway: WireLimits.connectionBufferBytes,
                    service: 16 * WireLimits.connectionBufferBytes),
                range: 65_536...Int(Int32.max))
        case .maxInFlightPerConnection:
            // The Gateway's is a client's fair share of a service link; a service's at least the
            // Gateway's RNM_MAX_IN_FLIGHT and one request a connection past it (a client with
            // nothing else in flight is served past it), so that it never refuses the Gateway's link.
            SettingSpec(
                "Requests one connection may have in flight; more get -32005",
                default: .perProcess(gateway: 256, service: 2 * WireLimits.maxInFlightPerConnection),
                range: 1...1_000_000)
        case .maxInFlight:
            SettingSpec(
                "Requests in flight in the Gateway over all clients; more get -32005", default: .integer(4096),
                range: 1...1_000_000)
        case .maxParamBytes:
            SettingSpec(
                "Longest string parameter (names, filters, countries), in bytes", default: .integer(256),
                range: 16...65_536)
        case .upstreamMaxBytes:
            SettingSpec(
                "Largest upstream response body, in bytes", default: .integer(16 * 1_048_576),
                range: 65_536...Int(Int32.max))
        case .universitiesSyncTimeoutMilliseconds:
            // The real world list is several megabytes: not one ordinary request's 5 s.
            SettingSpec(
                "Time universities.sync may take to download the whole world list, in ms",
                default: .integer(120_000), range: 1000...3_600_000)
        case .upstreamMaxConnections:
            // libcurl's default is 6 per host; a burst of cold reads then queued past deadlines.
            SettingSpec(
                "Connections a service keeps to its upstream at once; a request waits up to its timeout for one",
                default: .integer(32), range: 1...1024)
        case .charactersMaxListPages:
            SettingSpec(
                "Cached pages of filtered lists kept, least recently used evicted", default: .integer(5000),
                range: 1...10_000_000)
        case .charactersMaxRecords:
            // The real API has 826 characters, 126 locations and 51 episodes: room to grow a
            // hundredfold, while a page claiming millions fails at once instead of a sync
            // fetching (and planning) millions of pages.
            SettingSpec(
                "Records of one kind an upstream list may claim (its info.count); a page claiming more is refused",
                default: .integer(100_000), range: 1...100_000_000)
        case .charactersMaxAbsentIDs:
            // A 404 is cacheable (RFC 9111 §4.2.2): 1,100 absent ids once cost 11 upstream
            // requests on every read. About 60 bytes each: 6 MB at the default.
            SettingSpec(
                """
                Ids the upstream said do not exist, remembered for the max age (oldest out first); 0 asks every \
                time
                """,
                default: .integer(100_000), range: 0...10_000_000)
        case .replyCacheBytes:
            // About a thousand characters with their episodes.
            SettingSpec(
                "Bytes of finished replies kept to answer repeated reads at once; 0 turns it off",
                default: .integer(4 * 1_048_576), range: 0...1_073_741_824)
        case .eventLoops:
            SettingSpec(
                "Event loop threads (the process's tasks run on them too)",
                default: .described("1 in the Gateway, one per core elsewhere"), range: 1...256)
        case .httpAddress:
            SettingSpec("host:port the HTTP front listens on", default: .text("127.0.0.1:8080"))
        case .publicURL:
            SettingSpec(
                "Base URL written into every link the HTTP front returns", default: .text("http://127.0.0.1:8080"))
        case .httpMaxURLBytes:
            SettingSpec("Longest request target; longer is 414", default: .integer(8192), range: 64...1_048_576)
        case .httpMaxHeaderBytes:
            SettingSpec("Header bytes of one request", default: .integer(16384), range: 1024...1_048_576)
        case .httpIdleTimeoutMilliseconds:
            SettingSpec(
                "An idle keep-alive connection is closed after it, in ms", default: .integer(60000),
                range: 100...3_600_000)
        case .httpSendTimeoutMilliseconds:
            SettingSpec(
                "A client that reads nothing of an answer for this long is disconnected, in ms",
                default: .integer(30000), range: 100...3_600_000)
        case .httpMaxConnections:
            // Well under a container's usual 1,048,576 descriptors, and the kernel's somaxconn.
            SettingSpec(
                "Open HTTP connections in all; past it a new one is answered 503 and closed (also the listen "
                    + "queue's length, at least 256)",
                default: .integer(4096), range: 1...1_000_000)
        case .httpMaxConnectionsPerClient:
            // A browser opens 6 per host; an app behind one NAT address a few dozen.
            SettingSpec(
                "Open HTTP connections from one client address; past it a new one is answered 503 and closed",
                default: .integer(64), range: 1...1_000_000)
        case .httpCacheMilliseconds:
            SettingSpec(
                "How long an answer fresh from rnm's cache is answered again from memory, in ms; 0 turns it off",
                default: .integer(1000), range: 0...3_600_000)
        case .httpCacheBytes:
            SettingSpec(
                "Bytes of such answers kept, oldest out first", default: .integer(8 * 1_048_576),
                range: 0...1_073_741_824)
        case .httpMetricsAddress:
            // In a cluster the public port faces every client: Prometheus scrapes another one.
            SettingSpec(
                "host:port serving GET /metrics on its own (then not on the public port); empty: the public port",
                default: .described("empty"))
        case .httpTrustedProxies:
            SettingSpec(
                """
                Addresses or CIDR blocks (comma-separated) of proxies whose X-Forwarded-For names the client that \
                per-client limits count; empty: none, the peer is the client
                """,
                default: .described("empty"))
        case .httpDrainMilliseconds:
            // Kubernetes removes a terminating pod from its Service while the pod still runs:
            // connections keep coming for a few seconds (docs/KUBERNETES.md).
            SettingSpec(
                """
                After SIGTERM, how long the HTTP front keeps answering (GET /readyz 503, every answer \
                Connection: close) before it stops listening and finishes what it holds, in ms
                """,
                default: .integer(0), range: 0...600_000)
        case .graphqlMaxQueryBytes:
            SettingSpec(
                "Longest GraphQL request (POST body or GET query), in bytes; longer is 413",
                default: .integer(16384), range: 256...1_048_576)
        case .graphqlMaxDepth:
            // The API's server: graphql-depth-limit `depth(4)` refuses a sixth level of fields.
            SettingSpec(
                "Deepest nesting of a GraphQL query's fields (introspection fields not counted)", default: .integer(5),
                range: 1...100)
        case .graphqlMaxAliases:
            SettingSpec("Aliased fields one GraphQL query may hold", default: .integer(50), range: 0...10_000)
        case .graphqlMaxRecords:
            SettingSpec(
                "Records one GraphQL query may resolve; the query fails before fetching past it",
                default: .integer(10000), range: 1...1_000_000)
        case .graphqlMaxCallsInFlight:
            SettingSpec(
                "Gateway calls one GraphQL query may have in flight at once", default: .integer(4), range: 1...256)
        case .graphqlCacheBytes:
            SettingSpec(
                """
                Bytes of GraphQL query text whose parsed, validated documents are kept (oldest out first), and as \
                many of answers that read no record (introspection); 0 keeps none
                """,
                default: .integer(262_144), range: 0...67_108_864)
        case .graphqlMaxTokens:
            // graphql-armor's maxTokens default; every query of the API's own suite holds < 100.
            SettingSpec(
                "Tokens one GraphQL document may hold, counted before it is parsed", default: .integer(1000),
                range: 16...100_000)
        case .graphqlMaxCost:
            // GraphiQL's introspection query costs 3,912 here (QueryCost); the cost of 5,000 took
            // ~75 ms of CPU in a debug build, ~15 ms in a release build.
            SettingSpec(
                """
                What one GraphQL query may cost before it runs: fields as expanded through fragments, \
                a tenth for each introspection object by the schema's fan-out
                """,
                default: .integer(5000), range: 10...10_000_000)
        case .graphqlMaxRunning:
            SettingSpec(
                "GraphQL requests worked on at once, in all; past it 503 with Retry-After", default: .integer(4),
                range: 1...1024)
        case .graphqlMaxRunningPerClient:
            SettingSpec(
                "GraphQL requests of one client address worked on at once; past it 503 with Retry-After",
                default: .integer(2), range: 1...1024)
        case .graphqlTimeoutMilliseconds:
            SettingSpec(
                "How long one GraphQL request may run before it is stopped and answered 504, in ms",
                default: .integer(10000), range: 10...600_000)
        case .graphqlMaxRecordsInFlight:
            SettingSpec(
                "Records all GraphQL queries in flight may hold together; past it 503 with Retry-After",
                default: .integer(10000), range: 1...10_000_000)
        }
    }
}
