import ArgumentParser
import Messaging

/// `rnmctl`: the command-line client of rnm. It talks to the Gateway only.
@main
struct RnmCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rnmctl",
        abstract: "Query rnm: Rick and Morty characters, locations, episodes and universities.",
        discussion: ExitStatus.helpText,
        subcommands: [CharactersCommand.self, LocationsCommand.self, EpisodesCommand.self, FavoritesCommand.self,
                      UniversitiesCommand.self, StatusCommand.self, CallCommand.self]
    )
}
