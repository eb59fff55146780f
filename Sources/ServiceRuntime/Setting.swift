#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Logging

/// The environment variables of docs/PROTOCOL.md §7, and the defaults they fall back to.
public enum Setting: String, CaseIterable, Sendable {
    case gatewaySocket = "RNM_GATEWAY_SOCKET"
    case charactersSocket = "RNM_CHARACTERS_SOCKET"
    case universitiesSocket = "RNM_UNIVERSITIES_SOCKET"
    case charactersDatabase = "RNM_CHARACTERS_DB"
    case universitiesDatabase = "RNM_UNIVERSITIES_DB"
    case favoritesDatabase = "RNM_FAVORITES_DB"
    /// A PostgreSQL database for the favorites, shared by CharacterService replicas.
    case favoritesURL = "RNM_FAVORITES_URL"
    case rickAndMortyURL = "RNM_RICKANDMORTY_URL"
    case universitiesURL = "RNM_UNIVERSITIES_URL"
    case upstreamTimeoutMilliseconds = "RNM_UPSTREAM_TIMEOUT_MS"
    case charactersMaxAge = "RNM_CHARACTERS_MAX_AGE"
    case universitiesMaxAge = "RNM_UNIVERSITIES_MAX_AGE"
    case requestTimeoutMilliseconds = "RNM_REQUEST_TIMEOUT_MS"
    case maxFrameBytes = "RNM_MAX_FRAME_BYTES"
    case logLevel = "RNM_LOG_LEVEL"
    /// How log lines are written: readable text, or one JSON object per line.
    case logFormat = "RNM_LOG_FORMAT"
    /// Whether a process records metrics.
    case metrics = "RNM_METRICS"
    /// How long a started frame may stay incomplete before the server closes the connection.
    case frameTimeoutMilliseconds = "RNM_FRAME_TIMEOUT_MS"
    /// Bytes one connection may hold in a server (requests being served, replies waiting).
    case connectionBufferBytes = "RNM_CONNECTION_BUFFER_BYTES"
    /// Client connections a server process keeps open at once.
    case maxConnections = "RNM_MAX_CONNECTIONS"
    /// Bytes of replies waiting unread over all of the Gateway's connections.
    case maxUnreadBytes = "RNM_MAX_UNREAD_BYTES"
    /// How long a client may take none of its replies before a server disconnects it.
    case unreadTimeoutMilliseconds = "RNM_UNREAD_TIMEOUT_MS"
    /// Requests one connection may have in flight.
    case maxInFlightPerConnection = "RNM_MAX_IN_FLIGHT_PER_CONNECTION"
    /// Requests the Gateway has in flight over all its clients.
    case maxInFlight = "RNM_MAX_IN_FLIGHT"
    /// The longest string parameter a service accepts, in bytes.
    case maxParamBytes = "RNM_MAX_PARAM_BYTES"
    /// The largest upstream response body a service accepts, in bytes.
    case upstreamMaxBytes = "RNM_UPSTREAM_MAX_BYTES"
    /// How long `universities.sync` may take to download the whole world list.
    case universitiesSyncTimeoutMilliseconds = "RNM_UNIVERSITIES_SYNC_TIMEOUT_MS"
    /// Connections a service keeps open to its upstream at once.
    case upstreamMaxConnections = "RNM_UPSTREAM_MAX_CONNECTIONS"
    /// The longest wait between probes of a failing upstream.
    case upstreamRetryMaxMilliseconds = "RNM_UPSTREAM_RETRY_MAX_MS"
    /// The longest `Retry-After` a service obeys.
    case upstreamRetryAfterMaxMilliseconds = "RNM_UPSTREAM_RETRY_AFTER_MAX_MS"
    /// Seconds past the max age a stored character answer is given at once while it is refreshed.
    case charactersStaleWhileRevalidate = "RNM_CHARACTERS_STALE_WHILE_REVALIDATE"
    /// Cached list pages of filtered queries the CharacterService keeps (least recently used
    /// evicted past it).
    case charactersMaxListPages = "RNM_CHARACTERS_MAX_LIST_PAGES"
    /// Records of one kind the CharacterService believes an upstream list holds.
    case charactersMaxRecords = "RNM_CHARACTERS_MAX_RECORDS"
    /// Ids the CharacterService remembers the upstream said do not exist.
    case charactersMaxAbsentIDs = "RNM_CHARACTERS_MAX_ABSENT_IDS"
    /// Bytes of finished replies a service keeps to answer repeated reads at once.
    case replyCacheBytes = "RNM_REPLY_CACHE_BYTES"
    /// Event loop threads of a process (its tasks run on them too).
    case eventLoops = "RNM_EVENT_LOOPS"
    /// Where the HTTPGateway listens (`host:port`).
    case httpAddress = "RNM_HTTP_ADDRESS"
    /// The base the HTTPGateway writes into every link it returns.
    case publicURL = "RNM_PUBLIC_URL"
    /// The longest request target (path and query) the HTTPGateway reads, in bytes.
    case httpMaxURLBytes = "RNM_HTTP_MAX_URL_BYTES"
    /// The most header bytes of one HTTP request.
    case httpMaxHeaderBytes = "RNM_HTTP_MAX_HEADER_BYTES"
    /// How long an idle HTTP connection stays open.
    case httpIdleTimeoutMilliseconds = "RNM_HTTP_IDLE_TIMEOUT_MS"
    /// A client that reads nothing of an answer for this long is disconnected.
    case httpSendTimeoutMilliseconds = "RNM_HTTP_SEND_TIMEOUT_MS"
    /// Open HTTP connections, in all.
    case httpMaxConnections = "RNM_HTTP_MAX_CONNECTIONS"
    /// Open HTTP connections from one client address.
    case httpMaxConnectionsPerClient = "RNM_HTTP_MAX_CONNECTIONS_PER_CLIENT"
    /// How long the HTTPGateway answers a fresh cached answer again from memory (0: never).
    case httpCacheMilliseconds = "RNM_HTTP_CACHE_MS"
    /// The most bytes of answers the HTTPGateway keeps in memory.
    case httpCacheBytes = "RNM_HTTP_CACHE_BYTES"
    /// Where the HTTPGateway serves `/metrics` apart from the public port (`host:port`).
    case httpMetricsAddress = "RNM_HTTP_METRICS_ADDRESS"
    /// Proxies whose `X-Forwarded-For` / `Forwarded` name the client the limits count.
    case httpTrustedProxies = "RNM_HTTP_TRUSTED_PROXIES"
    /// How long the HTTPGateway keeps answering after SIGTERM before it stops listening.
    case httpDrainMilliseconds = "RNM_HTTP_DRAIN_MS"
    /// The longest GraphQL request (a POST body, or a GET's query parameters), in bytes.
    case graphqlMaxQueryBytes = "RNM_GRAPHQL_MAX_QUERY_BYTES"
    /// How deep a GraphQL query may nest its selections.
    case graphqlMaxDepth = "RNM_GRAPHQL_MAX_DEPTH"
    /// How many aliased fields one GraphQL query may hold.
    case graphqlMaxAliases = "RNM_GRAPHQL_MAX_ALIASES"
    /// How many records one GraphQL query may resolve.
    case graphqlMaxRecords = "RNM_GRAPHQL_MAX_RECORDS"
    /// How many Gateway calls one GraphQL query may have in flight at once.
    case graphqlMaxCallsInFlight = "RNM_GRAPHQL_MAX_CALLS_IN_FLIGHT"
    /// Bytes of GraphQL query text whose parsed, validated documents the HTTPGateway keeps.
    case graphqlCacheBytes = "RNM_GRAPHQL_CACHE_BYTES"
    /// How many tokens a GraphQL document may hold, counted before it is parsed.
    case graphqlMaxTokens = "RNM_GRAPHQL_MAX_TOKENS"
    /// What one GraphQL query may cost: its fields as expanded through fragments, introspection
    /// objects by the schema's fan-out.
    case graphqlMaxCost = "RNM_GRAPHQL_MAX_COST"
    /// How many GraphQL requests the HTTPGateway works on at once, in all.
    case graphqlMaxRunning = "RNM_GRAPHQL_MAX_RUNNING"
    /// How many GraphQL requests of one client address it works on at once.
    case graphqlMaxRunningPerClient = "RNM_GRAPHQL_MAX_RUNNING_PER_CLIENT"
    /// How long one GraphQL request may take before it is stopped.
    case graphqlTimeoutMilliseconds = "RNM_GRAPHQL_TIMEOUT_MS"
    /// How many records all the GraphQL queries in flight may hold together.
    case graphqlMaxRecordsInFlight = "RNM_GRAPHQL_MAX_RECORDS_IN_FLIGHT"

    /// The value set in `environment`, if any and not empty.
    public func value(in environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        guard let value = environment[rawValue], !value.isEmpty else { return nil }
        return value
    }

    /// The flag's value, else the environment's, else `fallback`.
    public func resolve(
        _ flag: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
        default fallback: @autoclosure () -> String
    ) -> String {
        flag ?? value(in: environment) ?? fallback()
    }

    /// The flag's value, else the environment's parsed as an integer, else `fallback`.
    /// - Throws: ``SettingError`` when the environment's value is not an integer in `range`.
    public func resolveInteger(
        _ flag: Int?, environment: [String: String] = ProcessInfo.processInfo.environment,
        default fallback: Int, range: ClosedRange<Int> = 0...Int.max
    ) throws -> Int {
        let value: Int
        if let flag {
            value = flag
        } else if let text = self.value(in: environment) {
            guard let parsed = Int(text) else { throw SettingError(setting: self, value: text, expected: "an integer") }
            value = parsed
        } else {
            value = fallback
        }
        guard range.contains(value) else {
            throw SettingError(
                setting: self, value: String(value), expected: "an integer in \(range.lowerBound)...\(range.upperBound)"
            )
        }
        return value
    }
}

/// A setting whose value cannot be used.
public struct SettingError: Error, CustomStringConvertible {
    public let setting: Setting
    public let value: String
    public let expected: String
    public var description: String { "\(setting.rawValue)=\(value) is not \(expected)" }
}
