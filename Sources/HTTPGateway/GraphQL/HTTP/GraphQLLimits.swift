import GraphQL
import ServiceRuntime

/// What one GraphQL request may cost (docs/PROTOCOL.md §10); each a setting.
struct GraphQLLimits: Sendable {
    /// `RNM_GRAPHQL_MAX_QUERY_BYTES`: the request body, or a GET's query string.
    var maxQueryBytes = Defaults.graphqlMaxQueryBytes
    /// `RNM_GRAPHQL_MAX_TOKENS`: tokens of the document, counted before it is parsed.
    var maxTokens = Defaults.graphqlMaxTokens
    /// `RNM_GRAPHQL_MAX_COST`: fields as expanded through fragments (``QueryCost``).
    var maxCost = Defaults.graphqlMaxCost
    /// `RNM_GRAPHQL_MAX_DEPTH`: nesting of fields, fragments expanded, introspection not counted.
    var maxDepth = Defaults.graphqlMaxDepth
    /// `RNM_GRAPHQL_MAX_ALIASES`: aliased fields, fragments expanded.
    var maxAliases = Defaults.graphqlMaxAliases
    /// `RNM_GRAPHQL_MAX_RECORDS`: records resolved; checked before each fetch.
    var maxRecords = Defaults.graphqlMaxRecords
    /// `RNM_GRAPHQL_MAX_CALLS_IN_FLIGHT`: one query's Gateway calls at once.
    var maxCallsInFlight = Defaults.graphqlMaxCallsInFlight
    /// `RNM_GRAPHQL_CACHE_BYTES`: query text whose parsed, validated documents are kept.
    var cacheBytes = Defaults.graphqlCacheBytes
    /// `RNM_GRAPHQL_MAX_RUNNING`: requests worked on at once, in all (``GraphQLAdmission``).
    var maxRunning = Defaults.graphqlMaxRunning
    /// `RNM_GRAPHQL_MAX_RUNNING_PER_CLIENT`: requests of one client address at once.
    var maxRunningPerClient = Defaults.graphqlMaxRunningPerClient
    /// `RNM_GRAPHQL_TIMEOUT_MS`: how long one request may run.
    var timeout = Duration.milliseconds(Defaults.graphqlTimeoutMilliseconds)
    /// `RNM_GRAPHQL_MAX_RECORDS_IN_FLIGHT`: records of every query in flight, together.
    var maxRecordsInFlight = Defaults.graphqlMaxRecordsInFlight

    /// A limit's refusal, the one way every limit words it: its message, naming the setting, and
    /// the code every limit answers with.
    static func exceeded(_ message: String) -> GraphQLError {
        GraphQLError(message: message, extensions: ["code": "QUERY_TOO_LARGE"])
    }
}
