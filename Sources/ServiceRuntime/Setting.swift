#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Logging

/// rnm's settings: each case is an environment variable; what it is, its default, range, readers
/// and flag are its entry in the settings table (``spec``, Setting+Table.swift and its parts),
/// written there only (docs/SETTINGS.md is generated from it).
public enum Setting: String, CaseIterable, Sendable {
    case gatewaySocket = "RNM_GATEWAY_SOCKET"
    case charactersSocket = "RNM_CHARACTERS_SOCKET"
    case universitiesSocket = "RNM_UNIVERSITIES_SOCKET"
    case charactersDatabase = "RNM_CHARACTERS_DB"
    case universitiesDatabase = "RNM_UNIVERSITIES_DB"
    case favoritesDatabase = "RNM_FAVORITES_DB"
    case favoritesURL = "RNM_FAVORITES_URL"
    case rickAndMortyURL = "RNM_RICKANDMORTY_URL"
    case universitiesURL = "RNM_UNIVERSITIES_URL"
    case upstreamTimeoutMilliseconds = "RNM_UPSTREAM_TIMEOUT_MS"
    case charactersMaxAge = "RNM_CHARACTERS_MAX_AGE"
    case universitiesMaxAge = "RNM_UNIVERSITIES_MAX_AGE"
    case requestTimeoutMilliseconds = "RNM_REQUEST_TIMEOUT_MS"
    case healthTimeoutMilliseconds = "RNM_HEALTH_TIMEOUT_MS"
    case maxFrameBytes = "RNM_MAX_FRAME_BYTES"
    case logLevel = "RNM_LOG_LEVEL"
    case logFormat = "RNM_LOG_FORMAT"
    case metrics = "RNM_METRICS"
    case frameTimeoutMilliseconds = "RNM_FRAME_TIMEOUT_MS"
    case connectionBufferBytes = "RNM_CONNECTION_BUFFER_BYTES"
    case maxConnections = "RNM_MAX_CONNECTIONS"
    case maxUnreadBytes = "RNM_MAX_UNREAD_BYTES"
    case unreadTimeoutMilliseconds = "RNM_UNREAD_TIMEOUT_MS"
    case maxInFlightPerConnection = "RNM_MAX_IN_FLIGHT_PER_CONNECTION"
    case maxInFlight = "RNM_MAX_IN_FLIGHT"
    case maxParamBytes = "RNM_MAX_PARAM_BYTES"
    case upstreamMaxBytes = "RNM_UPSTREAM_MAX_BYTES"
    case universitiesSyncTimeoutMilliseconds = "RNM_UNIVERSITIES_SYNC_TIMEOUT_MS"
    case upstreamMaxConnections = "RNM_UPSTREAM_MAX_CONNECTIONS"
    case upstreamRetryMaxMilliseconds = "RNM_UPSTREAM_RETRY_MAX_MS"
    case upstreamRetryAfterMaxMilliseconds = "RNM_UPSTREAM_RETRY_AFTER_MAX_MS"
    case charactersStaleWhileRevalidate = "RNM_CHARACTERS_STALE_WHILE_REVALIDATE"
    case charactersMaxListPages = "RNM_CHARACTERS_MAX_LIST_PAGES"
    case charactersMaxRecords = "RNM_CHARACTERS_MAX_RECORDS"
    case charactersMaxAbsentIDs = "RNM_CHARACTERS_MAX_ABSENT_IDS"
    case replyCacheBytes = "RNM_REPLY_CACHE_BYTES"
    case eventLoops = "RNM_EVENT_LOOPS"
    case httpAddress = "RNM_HTTP_ADDRESS"
    case publicURL = "RNM_PUBLIC_URL"
    case httpMaxURLBytes = "RNM_HTTP_MAX_URL_BYTES"
    case httpMaxHeaderBytes = "RNM_HTTP_MAX_HEADER_BYTES"
    case httpIdleTimeoutMilliseconds = "RNM_HTTP_IDLE_TIMEOUT_MS"
    case httpBodyTimeoutMilliseconds = "RNM_HTTP_BODY_TIMEOUT_MS"
    case httpSendTimeoutMilliseconds = "RNM_HTTP_SEND_TIMEOUT_MS"
    case httpMaxConnections = "RNM_HTTP_MAX_CONNECTIONS"
    case httpMaxConnectionsPerClient = "RNM_HTTP_MAX_CONNECTIONS_PER_CLIENT"
    case httpCacheMilliseconds = "RNM_HTTP_CACHE_MS"
    case httpCacheBytes = "RNM_HTTP_CACHE_BYTES"
    case httpMetricsAddress = "RNM_HTTP_METRICS_ADDRESS"
    case httpTrustedProxies = "RNM_HTTP_TRUSTED_PROXIES"
    case httpDrainMilliseconds = "RNM_HTTP_DRAIN_MS"
    case graphqlMaxQueryBytes = "RNM_GRAPHQL_MAX_QUERY_BYTES"
    case graphqlMaxDepth = "RNM_GRAPHQL_MAX_DEPTH"
    case graphqlMaxAliases = "RNM_GRAPHQL_MAX_ALIASES"
    case graphqlMaxRecords = "RNM_GRAPHQL_MAX_RECORDS"
    case graphqlMaxCallsInFlight = "RNM_GRAPHQL_MAX_CALLS_IN_FLIGHT"
    case graphqlCacheBytes = "RNM_GRAPHQL_CACHE_BYTES"
    case graphqlMaxTokens = "RNM_GRAPHQL_MAX_TOKENS"
    case graphqlMaxCost = "RNM_GRAPHQL_MAX_COST"
    case graphqlMaxRunning = "RNM_GRAPHQL_MAX_RUNNING"
    case graphqlMaxRunningPerClient = "RNM_GRAPHQL_MAX_RUNNING_PER_CLIENT"
    case graphqlTimeoutMilliseconds = "RNM_GRAPHQL_TIMEOUT_MS"
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
