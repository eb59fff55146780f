import ArgumentParser
import Messaging
import ServiceRuntime

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

    @Option(name: .customLong("max-param-bytes"), help: "Longest string parameter in bytes (env RNM_MAX_PARAM_BYTES, default 256).")
    var maxParamBytes: Int?

    @Option(name: .customLong("upstream-max-bytes"), help: "Largest upstream response body (env RNM_UPSTREAM_MAX_BYTES, default 16777216).")
    var upstreamMaxBytes: Int?

    @Option(name: .customLong("max-list-pages"), help: "Cached pages of filtered lists kept, least recently used evicted (env RNM_CHARACTERS_MAX_LIST_PAGES, default 5000).")
    var maxListPages: Int?

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
            frameTimeout: try common.resolvedFrameTimeout(),
            maxInFlightPerConnection: try common.resolvedMaxInFlightPerConnection(default: Defaults.serviceMaxInFlightPerConnection),
            connectionBufferBytes: try common.resolvedConnectionBufferBytes(),
            maxParamBytes: try Setting.maxParamBytes.resolveInteger(maxParamBytes, default: Defaults.maxParamBytes, range: 16...65_536),
            upstreamMaxBytes: try Setting.upstreamMaxBytes.resolveInteger(upstreamMaxBytes, default: Defaults.upstreamMaxBytes, range: 65_536...Int(Int32.max)),
            maxListPages: try Setting.charactersMaxListPages.resolveInteger(maxListPages, default: Defaults.charactersMaxListPages, range: 1...10_000_000)
        )
        let services = try CharacterServiceApp.build(configuration: configuration, logger: logger)
        try await ServiceRunner.run(services, logger: logger)
    }
}
