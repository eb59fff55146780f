import ArgumentParser
import Messaging

/// `CharacterService`: serves characters, locations, episodes and favorites on a Unix socket.
@main
struct CharacterServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "CharacterService",
        abstract: "Serves the Rick and Morty API, cached in SQLite, on a Unix socket."
    )

    @Option(help: "Socket to listen on (env RNM_CHARACTERS_SOCKET).")
    var socket: String?

    @OptionGroup var common: CommonOptions

    func run() async throws {
        let logger = try common.makeLogger(label: "rnm.characters")
        let configuration = CharacterServiceConfiguration(
            socketPath: Setting.charactersSocket.resolve(socket, default: DefaultPaths.socket("characters.sock")),
            maxFrameBytes: try common.resolvedMaxFrameBytes()
        )
        let services = try CharacterServiceApp.build(configuration: configuration, logger: logger)
        try await ServiceRunner.run(services, logger: logger)
    }
}
