import ArgumentParser
import RnmAPI
import ServiceKit
import ServiceRuntime

/// `UniversityService`: serves universities on a Unix socket.
public struct UniversityServiceCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "UniversityService",
        abstract: "Serves the Hipo universities API, cached in SQLite, on a Unix socket."
    )

    @OptionGroup var service: CachingServiceOptions<UniversityServiceSpec>

    @Option(
        name: Setting.universitiesSyncTimeoutMilliseconds.flagName,
        help: Setting.universitiesSyncTimeoutMilliseconds.help)
    var syncTimeout: Int?

    public init() {}

    public func run() async throws {
        let logger = try service.common.makeLogger(label: "rnm.universities")
        let services = try UniversityServiceApp.build(
            configuration: try service.resolve(),
            syncTimeoutMilliseconds: try Setting.universitiesSyncTimeoutMilliseconds.resolveInteger(syncTimeout),
            logger: logger)
        try await ServiceRunner.run(services, logger: logger)
    }
}

/// The UniversityService's place in the caching service template.
enum UniversityServiceSpec: CachingServiceSpec {
    static let name = ServiceName.universities
    static let reader = SettingReader.universityService
    static let socketSetting = Setting.universitiesSocket
    static let databaseSetting = Setting.universitiesDatabase
    static let upstreamSetting = Setting.universitiesURL
    static let maxAgeSetting = Setting.universitiesMaxAge
}
