import ArgumentParser
import Messaging
import ServiceRuntime

/// `UniversityService`: serves universities on a Unix socket.
@main
struct UniversityServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "UniversityService",
        abstract: "Serves the Hipo universities API, cached in SQLite, on a Unix socket."
    )

    @Option(help: "Socket to listen on (env RNM_UNIVERSITIES_SOCKET).")
    var socket: String?

    @Option(help: "SQLite cache file (env RNM_UNIVERSITIES_DB, default $XDG_DATA_HOME/rnm/universities.sqlite).")
    var database: String?

    @Option(name: .customLong("upstream-url"), help: "Upstream base URL (env RNM_UNIVERSITIES_URL, default http://universities.hipolabs.com).")
    var upstreamURL: String?

    @Option(name: .customLong("upstream-timeout-ms"), help: "Timeout of one upstream request (env RNM_UPSTREAM_TIMEOUT_MS, default 5000).")
    var upstreamTimeout: Int?

    @Option(name: .customLong("max-age"), help: "Seconds a cached list is served without asking the upstream (env RNM_UNIVERSITIES_MAX_AGE, default 0).")
    var maxAge: Int?

    @Option(name: .customLong("max-param-bytes"), help: "Longest string parameter in bytes (env RNM_MAX_PARAM_BYTES, default 256).")
    var maxParamBytes: Int?

    @Option(name: .customLong("upstream-max-bytes"), help: "Largest upstream response body (env RNM_UPSTREAM_MAX_BYTES, default 16777216).")
    var upstreamMaxBytes: Int?

    @OptionGroup var common: CommonOptions

    func run() async throws {
        let logger = try common.makeLogger(label: "rnm.universities")
        let configuration = UniversityServiceConfiguration(
            socketPath: Setting.universitiesSocket.resolve(socket, default: DefaultPaths.socket("universities.sock")),
            databasePath: Setting.universitiesDatabase.resolve(database, default: DefaultPaths.database("universities.sqlite")),
            upstreamURL: Setting.universitiesURL.resolve(upstreamURL, default: "http://universities.hipolabs.com"),
            upstreamTimeoutMilliseconds: try Setting.upstreamTimeoutMilliseconds.resolveInteger(upstreamTimeout, default: 5000, range: 1...600_000),
            maxAgeSeconds: try Setting.universitiesMaxAge.resolveInteger(maxAge, default: 0),
            maxFrameBytes: try common.resolvedMaxFrameBytes(),
            frameTimeout: try common.resolvedFrameTimeout(),
            maxInFlightPerConnection: try common.resolvedMaxInFlightPerConnection(default: Defaults.serviceMaxInFlightPerConnection),
            connectionBufferBytes: try common.resolvedConnectionBufferBytes(),
            maxParamBytes: try Setting.maxParamBytes.resolveInteger(maxParamBytes, default: Defaults.maxParamBytes, range: 16...65_536),
            upstreamMaxBytes: try Setting.upstreamMaxBytes.resolveInteger(upstreamMaxBytes, default: Defaults.upstreamMaxBytes, range: 65_536...Int(Int32.max))
        )
        let services = try UniversityServiceApp.build(configuration: configuration, logger: logger)
        try await ServiceRunner.run(services, logger: logger)
    }
}
