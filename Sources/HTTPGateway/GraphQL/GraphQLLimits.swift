import ServiceRuntime

/// What one GraphQL request may cost (docs/PROTOCOL.md §10); each a setting.
struct GraphQLLimits: Sendable {
    /// `RNM_GRAPHQL_MAX_QUERY_BYTES`: the request body, or a GET's query string.
    var maxQueryBytes = Defaults.graphqlMaxQueryBytes
    /// `RNM_GRAPHQL_MAX_DEPTH`: nesting of selections, fragments expanded.
    var maxDepth = Defaults.graphqlMaxDepth
    /// `RNM_GRAPHQL_MAX_ALIASES`: aliased fields, fragments expanded.
    var maxAliases = Defaults.graphqlMaxAliases
    /// `RNM_GRAPHQL_MAX_RECORDS`: records resolved; checked before each fetch.
    var maxRecords = Defaults.graphqlMaxRecords
    /// `RNM_GRAPHQL_MAX_CALLS_IN_FLIGHT`: one query's Gateway calls at once.
    var maxCallsInFlight = Defaults.graphqlMaxCallsInFlight
    /// `RNM_GRAPHQL_CACHE_BYTES`: query text whose parsed, validated documents are kept.
    var cacheBytes = Defaults.graphqlCacheBytes
}
