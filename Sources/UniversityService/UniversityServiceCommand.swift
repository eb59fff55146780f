import ArgumentParser
import Messaging

/// `UniversityService`: serves universities on a Unix socket.
@main
struct UniversityServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "UniversityService",
        abstract: "Serves the Hipo universities API, cached in SQLite, on a Unix socket."
    )

    @Option(help: "Socket to listen on (env RNM_UNIVERSITIES_SOCKET).")
    var socket: String?

    @OptionGroup var common: CommonOptions

    func run() async throws {
        let logger = try common.makeLogger(label: "rnm.universities")
        let configuration = UniversityServiceConfiguration(
            socketPath: Setting.universitiesSocket.resolve(socket, default: DefaultPaths.socket("universities.sock")),
            maxFrameBytes: try common.resolvedMaxFrameBytes()
        )
        let services = try UniversityServiceApp.build(configuration: configuration, logger: logger)
        try await ServiceRunner.run(services, logger: logger)
    }
}
