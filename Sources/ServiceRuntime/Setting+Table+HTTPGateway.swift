extension Setting {
    /// The settings table's part for the HTTP front: its address, connections and micro-cache, and
    /// GraphQL's limits (nil for a setting of another part).
    var httpGatewaySpec: SettingSpec? {
        switch self {
        case .httpAddress:
            SettingSpec(
                "host:port the HTTP front listens on", default: .text("127.0.0.1:8080"),
                readers: [.httpGateway, .rnmctl], flagIn: [.httpGateway: "address"])
        case .publicURL:
            SettingSpec(
                "Base URL written into every link the HTTP front returns (unset: http:// and RNM_HTTP_ADDRESS, "
                    + "a wildcard host as 127.0.0.1)", default: .text("http://127.0.0.1:8080"),
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
        case .httpBodyTimeoutMilliseconds:
            // The idle timeout bounds the time between two of a body's bytes only: a byte a minute
            // held a connection for days (a helper's attack, BENCHMARKS.md "Session 23"). Node's
            // requestTimeout, the public API's server: 300 s for a whole request, then 408.
            SettingSpec(
                "Longest time to receive a request's body, from its head, however slowly its bytes keep coming; "
                    + "past it the connection is closed (with a 408 when the front holds the body, a GraphQL POST, "
                    + "and nothing else is being answered), in ms",
                default: .integer(300_000), range: 100...3_600_000, readers: [.httpGateway], flag: "body-timeout-ms")
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
                "How long an answer fresh from rnm's cache is answered again from memory, in ms (longer while its "
                    + "service's data is unchanged, up to its max age; a change shows within it); 0 turns it off",
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
        default: nil
        }
    }
}
