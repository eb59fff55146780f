import ArgumentParser
import Messaging

/// `Gateway`: the one socket clients talk to; routes each request to its service.
@main
struct GatewayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "Gateway",
        abstract: "Routes rnm requests from clients to the CharacterService and the UniversityService."
    )

    @Option(help: "Socket clients connect to (env RNM_GATEWAY_SOCKET).")
    var socket: String?

    @Option(name: .customLong("characters-socket"), help: "The CharacterService's socket (env RNM_CHARACTERS_SOCKET).")
    var charactersSocket: String?

    @Option(name: .customLong("universities-socket"), help: "The UniversityService's socket (env RNM_UNIVERSITIES_SOCKET).")
    var universitiesSocket: String?

    @OptionGroup var common: CommonOptions

    func run() async throws {
        let logger = try common.makeLogger(label: "rnm.gateway")
        let configuration = GatewayConfiguration(
            socketPath: Setting.gatewaySocket.resolve(socket, default: DefaultPaths.socket("gateway.sock")),
            charactersSocketPath: Setting.charactersSocket.resolve(charactersSocket, default: DefaultPaths.socket("characters.sock")),
            universitiesSocketPath: Setting.universitiesSocket.resolve(universitiesSocket, default: DefaultPaths.socket("universities.sock")),
            maxFrameBytes: try common.resolvedMaxFrameBytes()
        )
        let services = GatewayApp.build(configuration: configuration, logger: logger)
        try await ServiceRunner.run(services, logger: logger)
    }
}
