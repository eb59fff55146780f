/// The defaults code needs by name (configuration structs, tests), read from the settings
/// table (``Setting/spec``): no number is written here.
public enum Defaults {
    public static var maxFrameBytes: Int { Setting.maxFrameBytes.integerDefault() }
    public static var connectionBufferBytes: Int { Setting.connectionBufferBytes.integerDefault(in: .gateway) }
    public static var serviceConnectionBufferBytes: Int { Setting.connectionBufferBytes.integerDefault(in: .service) }
    public static var gatewayMaxInFlightPerConnection: Int {
        Setting.maxInFlightPerConnection.integerDefault(in: .gateway)
    }
    public static var serviceMaxInFlightPerConnection: Int {
        Setting.maxInFlightPerConnection.integerDefault(in: .service)
    }
    public static var gatewayMaxInFlight: Int { Setting.maxInFlight.integerDefault() }
    public static var maxParamBytes: Int { Setting.maxParamBytes.integerDefault() }
    public static var upstreamMaxBytes: Int { Setting.upstreamMaxBytes.integerDefault() }
    public static var upstreamTimeoutMilliseconds: Int { Setting.upstreamTimeoutMilliseconds.integerDefault() }
    public static var upstreamRetryMaxMilliseconds: Int { Setting.upstreamRetryMaxMilliseconds.integerDefault() }
    public static var upstreamRetryAfterMaxMilliseconds: Int {
        Setting.upstreamRetryAfterMaxMilliseconds.integerDefault()
    }
    public static var charactersStaleWhileRevalidate: Int { Setting.charactersStaleWhileRevalidate.integerDefault() }
    public static var charactersMaxListPages: Int { Setting.charactersMaxListPages.integerDefault() }
    public static var charactersMaxRecords: Int { Setting.charactersMaxRecords.integerDefault() }
    public static var charactersMaxAbsentIDs: Int { Setting.charactersMaxAbsentIDs.integerDefault() }
    public static var upstreamMaxConnections: Int { Setting.upstreamMaxConnections.integerDefault() }
    public static var universitiesSyncTimeoutMilliseconds: Int {
        Setting.universitiesSyncTimeoutMilliseconds.integerDefault()
    }
    public static var replyCacheBytes: Int { Setting.replyCacheBytes.integerDefault() }
    public static var requestTimeoutMilliseconds: Int { Setting.requestTimeoutMilliseconds.integerDefault() }
    public static var healthTimeoutMilliseconds: Int { Setting.healthTimeoutMilliseconds.integerDefault() }
    public static var frameTimeoutMilliseconds: Int { Setting.frameTimeoutMilliseconds.integerDefault() }
    public static var unreadTimeoutMilliseconds: Int { Setting.unreadTimeoutMilliseconds.integerDefault() }
    public static var httpAddress: String { Setting.httpAddress.textDefault }
    public static var publicURL: String { Setting.publicURL.textDefault }
    public static var httpMaxURLBytes: Int { Setting.httpMaxURLBytes.integerDefault() }
    public static var httpMaxHeaderBytes: Int { Setting.httpMaxHeaderBytes.integerDefault() }
    public static var httpIdleTimeoutMilliseconds: Int { Setting.httpIdleTimeoutMilliseconds.integerDefault() }
    public static var httpBodyTimeoutMilliseconds: Int { Setting.httpBodyTimeoutMilliseconds.integerDefault() }
    public static var httpSendTimeoutMilliseconds: Int { Setting.httpSendTimeoutMilliseconds.integerDefault() }
    public static var httpMaxConnections: Int { Setting.httpMaxConnections.integerDefault() }
    public static var httpMaxConnectionsPerClient: Int { Setting.httpMaxConnectionsPerClient.integerDefault() }
    public static var httpCacheMilliseconds: Int { Setting.httpCacheMilliseconds.integerDefault() }
    public static var httpDrainMilliseconds: Int { Setting.httpDrainMilliseconds.integerDefault() }
    public static var httpCacheBytes: Int { Setting.httpCacheBytes.integerDefault() }
    public static var graphqlMaxQueryBytes: Int { Setting.graphqlMaxQueryBytes.integerDefault() }
    public static var graphqlMaxDepth: Int { Setting.graphqlMaxDepth.integerDefault() }
    public static var graphqlMaxAliases: Int { Setting.graphqlMaxAliases.integerDefault() }
    public static var graphqlMaxRecords: Int { Setting.graphqlMaxRecords.integerDefault() }
    public static var graphqlMaxCallsInFlight: Int { Setting.graphqlMaxCallsInFlight.integerDefault() }
    public static var graphqlCacheBytes: Int { Setting.graphqlCacheBytes.integerDefault() }
    public static var graphqlMaxTokens: Int { Setting.graphqlMaxTokens.integerDefault() }
    public static var graphqlMaxCost: Int { Setting.graphqlMaxCost.integerDefault() }
    public static var graphqlMaxRunning: Int { Setting.graphqlMaxRunning.integerDefault() }
    public static var graphqlMaxRunningPerClient: Int { Setting.graphqlMaxRunningPerClient.integerDefault() }
    public static var graphqlTimeoutMilliseconds: Int { Setting.graphqlTimeoutMilliseconds.integerDefault() }
    public static var graphqlMaxRecordsInFlight: Int { Setting.graphqlMaxRecordsInFlight.integerDefault() }
}
