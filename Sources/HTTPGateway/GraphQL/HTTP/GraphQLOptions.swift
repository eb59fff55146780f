import ArgumentParser
import ServiceRuntime

/// The HTTPGateway's GraphQL limits as flags, each falling back to its setting.
struct GraphQLOptions: ParsableArguments {
    @Option(name: Setting.graphqlMaxQueryBytes.flagName, help: Setting.graphqlMaxQueryBytes.help)
    var maxQueryBytes: Int?

    @Option(name: Setting.graphqlMaxDepth.flagName, help: Setting.graphqlMaxDepth.help)
    var maxDepth: Int?

    @Option(name: Setting.graphqlMaxAliases.flagName, help: Setting.graphqlMaxAliases.help)
    var maxAliases: Int?

    @Option(name: Setting.graphqlMaxRecords.flagName, help: Setting.graphqlMaxRecords.help)
    var maxRecords: Int?

    @Option(name: Setting.graphqlMaxCallsInFlight.flagName, help: Setting.graphqlMaxCallsInFlight.help)
    var maxCallsInFlight: Int?

    @Option(name: Setting.graphqlCacheBytes.flagName, help: Setting.graphqlCacheBytes.help)
    var cacheBytes: Int?

    @Option(name: Setting.graphqlMaxTokens.flagName, help: Setting.graphqlMaxTokens.help)
    var maxTokens: Int?

    @Option(name: Setting.graphqlMaxCost.flagName, help: Setting.graphqlMaxCost.help)
    var maxCost: Int?

    @Option(name: Setting.graphqlMaxRunning.flagName, help: Setting.graphqlMaxRunning.help)
    var maxRunning: Int?

    @Option(name: Setting.graphqlMaxRunningPerClient.flagName, help: Setting.graphqlMaxRunningPerClient.help)
    var maxRunningPerClient: Int?

    @Option(name: Setting.graphqlTimeoutMilliseconds.flagName, help: Setting.graphqlTimeoutMilliseconds.help)
    var timeoutMilliseconds: Int?

    @Option(name: Setting.graphqlMaxRecordsInFlight.flagName, help: Setting.graphqlMaxRecordsInFlight.help)
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
