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

    @Option(name: .customLong("graphql-max-tokens"), help: Setting.graphqlMaxTokens.help)
    var maxTokens: Int?

    @Option(name: .customLong("graphql-max-cost"), help: Setting.graphqlMaxCost.help)
    var maxCost: Int?

    @Option(name: .customLong("graphql-max-running"), help: Setting.graphqlMaxRunning.help)
    var maxRunning: Int?

    @Option(name: .customLong("graphql-max-running-per-client"), help: Setting.graphqlMaxRunningPerClient.help)
    var maxRunningPerClient: Int?

    @Option(name: .customLong("graphql-timeout-ms"), help: Setting.graphqlTimeoutMilliseconds.help)
    var timeoutMilliseconds: Int?

    @Option(name: .customLong("graphql-max-records-in-flight"), help: Setting.graphqlMaxRecordsInFlight.help)
    var maxRecordsInFlight: Int?

    /// The limits: each flag, else its environment variable, else its default.
    func resolve() throws -> GraphQLLimits {
        GraphQLLimits(
            maxQueryBytes: try Setting.graphqlMaxQueryBytes.resolveInteger(maxQueryBytes),
            maxTokens: try Setting.graphqlMaxTokens.resolveInteger(maxTokens),
            maxCost: try Setting.graphqlMaxCost.resolveInteger(maxCost),
            maxDepth: try Setting.graphqlMaxDepth.resolveInteger(maxDepth),
            maxAliases: try Setting.graphqlMaxAliases.resolveInteger(maxAliases),
            maxRecords: try Setting.graphqlMaxRecords.resolveInteger(maxRecords),
            maxCallsInFlight: try Setting.graphqlMaxCallsInFlight.resolveInteger(maxCallsInFlight),
            cacheBytes: try Setting.graphqlCacheBytes.resolveInteger(cacheBytes),
            maxRunning: try Setting.graphqlMaxRunning.resolveInteger(maxRunning),
            maxRunningPerClient: try Setting.graphqlMaxRunningPerClient.resolveInteger(maxRunningPerClient),
            timeout: .milliseconds(try Setting.graphqlTimeoutMilliseconds.resolveInteger(timeoutMilliseconds)),
            maxRecordsInFlight: try Setting.graphqlMaxRecordsInFlight.resolveInteger(maxRecordsInFlight))
    }
}
