import ArgumentParser
import RnmAPI
import ServiceKit
import ServiceRuntime

/// `CharacterService`: serves characters, locations, episodes and favorites on a Unix socket.
public struct CharacterServiceCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "CharacterService",
        abstract: "Serves the Rick and Morty API, cached in SQLite, on a Unix socket."
    )

    @OptionGroup var service: CachingServiceOptions<CharacterServiceSpec>

    @Option(name: Setting.charactersMaxListPages.flagName, help: Setting.charactersMaxListPages.help)
    var maxListPages: Int?

    @Option(name: Setting.charactersStaleWhileRevalidate.flagName, help: Setting.charactersStaleWhileRevalidate.help)
    var staleWhileRevalidate: Int?

    @Option(name: Setting.charactersMaxRecords.flagName, help: Setting.charactersMaxRecords.help)
    var maxRecords: Int?

    @Option(name: Setting.charactersMaxAbsentIDs.flagName, help: Setting.charactersMaxAbsentIDs.help)
    var maxAbsentIDs: Int?

    @Option(
        name: Setting.favoritesDatabase.flagName,
        help: ArgumentHelp(Setting.favoritesDatabase.help.abstract, valueName: "path"))
    var favoritesDatabase: String?

    @Option(
        name: Setting.favoritesURL.flagName,
        help: ArgumentHelp(Setting.favoritesURL.help.abstract, valueName: "postgres-url"))
    var favoritesURL: String?

    public init() {}

    public func run() async throws {
        let logger = try service.common.makeLogger(label: "rnm.characters")
        let services = try CharacterServiceApp.build(
            configuration: try service.resolve(),
            settings: CharacterSettings(
                maxListPages: try Setting.charactersMaxListPages.resolveInteger(maxListPages),
                staleWhileRevalidate: try Setting.charactersStaleWhileRevalidate.resolveInteger(staleWhileRevalidate),
                maxRecords: try Setting.charactersMaxRecords.resolveInteger(maxRecords),
                maxAbsentIDs: try Setting.charactersMaxAbsentIDs.resolveInteger(maxAbsentIDs),
                favoritesPath: favoritesDatabase ?? Setting.favoritesDatabase.value(),
                favoritesURL: favoritesURL ?? Setting.favoritesURL.value()),
            logger: logger)
        try await ServiceRunner.run(services, logger: logger)
    }
}

/// The CharacterService's place in the caching service template.
enum CharacterServiceSpec: CachingServiceSpec {
    static let name = ServiceName.characters
    static let reader = SettingReader.characterService
    static let socketSetting = Setting.charactersSocket
    static let databaseSetting = Setting.charactersDatabase
    static let upstreamSetting = Setting.rickAndMortyURL
    static let maxAgeSetting = Setting.charactersMaxAge
}
