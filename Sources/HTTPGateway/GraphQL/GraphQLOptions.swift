import ArgumentParser
import ServiceRuntime

/// The HTTPGateway's GraphQL limits as flags, each falling back to its setting.
struct GraphQLOptions: ParsableArguments {
    @Option(name: .customLong("graphql-max-query-bytes"), help: Setting.graphqlMaxQueryBytes.help)
    var maxQueryBytes: Int?

    @Option(name: .customLong("graphql-max-depth"), help: Setting.graphqlMaxDepth.help)
    var maxDepth: Int?

    @Option(name: .customLong("graphql-max-aliases"), help: Setting.graphqlMaxAliases.help)
    var maxAliases: Int?

    @Option(name: .customLong("graphql-max-records"), help: Setting.graphqlMaxRecords.help)
    var maxRecords: Int?

    @Option(name: .customLong("graphql-max-calls-in-flight"), help: Setting.graphqlMaxCallsInFlight.help)
    var maxCallsInFlight: Int?

    @Option(name: .customLong("graphql-cache-bytes"), help: Setting.graphqlCacheBytes.help)
    var cacheBytes: Int?

    /// The limits: each flag, else its environment variable, else its default.
    func resolve() throws -> GraphQLLimits {
        GraphQLLimits(
            maxQueryBytes: try Setting.graphqlMaxQueryBytes.resolveInteger(maxQueryBytes),
            maxDepth: try Setting.graphqlMaxDepth.resolveInteger(maxDepth),
            maxAliases: try Setting.graphqlMaxAliases.resolveInteger(maxAliases),
            maxRecords: try Setting.graphqlMaxRecords.resolveInteger(maxRecords),
            maxCallsInFlight: try Setting.graphqlMaxCallsInFlight.resolveInteger(maxCallsInFlight),
            cacheBytes: try Setting.graphqlCacheBytes.resolveInteger(cacheBytes))
    }
}
