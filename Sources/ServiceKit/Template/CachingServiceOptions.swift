import ArgumentParser
import ServiceRuntime

/// The options of a caching service's command line, each also read from its environment
/// variable: the one template both services fill in with their ``CachingServiceSpec``. Help
/// texts, defaults and ranges come from the settings table (``Setting/spec``).
public struct CachingServiceOptions<Spec: CachingServiceSpec>: ParsableArguments {
    @Option(
        name: Spec.socketSetting.flagName(in: Spec.reader),
        help: ArgumentHelp(Spec.socketSetting.help.abstract, valueName: "path"))
    var socket: String?

    @Option(
        name: Spec.databaseSetting.flagName, help: ArgumentHelp(Spec.databaseSetting.help.abstract, valueName: "path"))
    var database: String?

    @Option(name: Spec.upstreamSetting.flagName, help: Spec.upstreamSetting.help)
    var upstreamURL: String?

    @Option(name: Setting.upstreamTimeoutMilliseconds.flagName, help: Setting.upstreamTimeoutMilliseconds.help)
    var upstreamTimeout: Int?

    @Option(name: Spec.maxAgeSetting.flagName, help: Spec.maxAgeSetting.help)
    var maxAge: Int?

    @Option(name: Setting.maxParamBytes.flagName, help: Setting.maxParamBytes.help)
    var maxParamBytes: Int?

    @Option(name: Setting.upstreamMaxBytes.flagName, help: Setting.upstreamMaxBytes.help)
    var upstreamMaxBytes: Int?

    @Option(name: Setting.upstreamMaxConnections.flagName, help: Setting.upstreamMaxConnections.help)
    var upstreamMaxConnections: Int?

    @Option(name: Setting.upstreamRetryMaxMilliseconds.flagName, help: Setting.upstreamRetryMaxMilliseconds.help)
    var retryMax: Int?

    @Option(
        name: Setting.upstreamRetryAfterMaxMilliseconds.flagName, help: Setting.upstreamRetryAfterMaxMilliseconds.help)
    var retryAfterMax: Int?

    @Option(name: Setting.replyCacheBytes.flagName, help: Setting.replyCacheBytes.help)
    var replyCacheBytes: Int?

    /// The options every process takes.
    @OptionGroup public var common: CommonOptions

    public init() {}

    /// The configuration in force: each flag, else its environment variable, else its default.
    public func resolve() throws -> CachingServiceConfiguration {
        CachingServiceConfiguration(
            socketPath: Spec.socketSetting.resolve(socket, default: DefaultPaths.socket(for: Spec.name)),
            databasePath: Spec.databaseSetting.resolve(
                database, default: DefaultPaths.database("\(Spec.name.rawValue).sqlite")),
            upstreamURL: Spec.upstreamSetting.resolve(upstreamURL),
            upstreamTimeoutMilliseconds: try Setting.upstreamTimeoutMilliseconds.resolveInteger(upstreamTimeout),
            maxAgeSeconds: try Spec.maxAgeSetting.resolveInteger(maxAge),
            maxParamBytes: try Setting.maxParamBytes.resolveInteger(maxParamBytes),
            upstreamMaxBytes: try Setting.upstreamMaxBytes.resolveInteger(upstreamMaxBytes),
            replyCacheBytes: try Setting.replyCacheBytes.resolveInteger(replyCacheBytes),
            limits: try common.resolvedServerLimits(in: .service),
            retryMaxMilliseconds: try Setting.upstreamRetryMaxMilliseconds.resolveInteger(retryMax),
            retryAfterMaxMilliseconds: try Setting.upstreamRetryAfterMaxMilliseconds.resolveInteger(retryAfterMax),
            upstreamMaxConnections: try Setting.upstreamMaxConnections.resolveInteger(upstreamMaxConnections),
            instruments: try common.makeInstruments()
        )
    }
}
