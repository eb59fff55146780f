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

    @Option(help: "SQLite cache file (env RNM_CHARACTERS_DB, default $XDG_DATA_HOME/rnm/characters.sqlite).")
    var database: String?

    @Option(name: .customLong("upstream-url"), help: "Upstream base URL (env RNM_RICKANDMORTY_URL, default https://rickandmortyapi.com/api).")
    var upstreamURL: String?

    @Option(name: .customLong("upstream-timeout-ms"), help: "Timeout of one upstream request (env RNM_UPSTREAM_TIMEOUT_MS, default 5000).")
    var upstreamTimeout: Int?

    @Option(name: .customLong("max-age"), help: "Seconds a cached answer is served without asking the upstream (env RNM_CHARACTERS_MAX_AGE, default 600).")
    var maxAge: Int?

    @OptionGroup var common: CommonOptions

    func run() async throws {
        let logger = try common.makeLogger(label: "rnm.characters")
        let configuration = CharacterServiceConfiguration(
            socketPath: Setting.charactersSocket.resolve(socket, default: DefaultPaths.socket("characters.sock")),
            databasePath: Setting.charactersDatabase.resolve(database, default: DefaultPaths.database("characters.sqlite")),
            upstreamURL: Setting.rickAndMortyURL.resolve(upstreamURL, default: "https://rickandmortyapi.com/api"),
            upstreamTimeoutMilliseconds: try Setting.upstreamTimeoutMilliseconds.resolveInteger(upstreamTimeout, default: 5000, range: 1...600_000),
            maxAgeSeconds: try Setting.charactersMaxAge.resolveInteger(maxAge, default: 600),
            maxFrameBytes: try common.resolvedMaxFrameBytes(),
            frameTimeout: try common.resolvedFrameTimeout()
        )
        let services = try CharacterServiceApp.build(configuration: configuration, logger: logger)
        try await ServiceRunner.run(services, logger: logger)
    }
}
