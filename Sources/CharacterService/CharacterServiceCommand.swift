import ArgumentParser
import RnmAPI
import ServiceRuntime

/// `CharacterService`: serves characters, locations, episodes and favorites on a Unix socket.
public struct CharacterServiceCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "CharacterService",
        abstract: "Serves the Rick and Morty API, cached in SQLite, on a Unix socket."
    )

    @OptionGroup var service: CachingServiceOptions<CharacterServiceSpec>

    @Option(name: .customLong("max-list-pages"), help: "Cached pages of filtered lists kept, least recently used evicted (env RNM_CHARACTERS_MAX_LIST_PAGES, default 5000).")
    var maxListPages: Int?

    @Option(name: .customLong("stale-while-revalidate"), help: "Seconds past the max age a stored answer is given at once while it is refreshed in the background; 0 turns it off (env RNM_CHARACTERS_STALE_WHILE_REVALIDATE, default \(Defaults.charactersStaleWhileRevalidate)).")
    var staleWhileRevalidate: Int?

    public init() {}

    public func run() async throws {
        let logger = try service.common.makeLogger(label: "rnm.characters")
        let services = try CharacterServiceApp.build(
            configuration: try service.resolve(),
            maxListPages: try Setting.charactersMaxListPages.resolveInteger(maxListPages, default: Defaults.charactersMaxListPages, range: 1...10_000_000),
            staleWhileRevalidate: try Setting.charactersStaleWhileRevalidate.resolveInteger(
                staleWhileRevalidate, default: Defaults.charactersStaleWhileRevalidate, range: 0...31_536_000),
            logger: logger)
        try await ServiceRunner.run(services, logger: logger)
    }
}

/// The CharacterService's place in the caching service template.
enum CharacterServiceSpec: CachingServiceSpec {
    static let name = ServiceName.characters
    static let socketSetting = Setting.charactersSocket
    static let databaseSetting = Setting.charactersDatabase
    static let upstreamSetting = Setting.rickAndMortyURL
    static let maxAgeSetting = Setting.charactersMaxAge
    static let defaultUpstreamURL = "https://rickandmortyapi.com/api"
    static let defaultMaxAge = 600
}
