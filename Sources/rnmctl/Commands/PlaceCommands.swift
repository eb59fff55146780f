import ArgumentParser
import Messaging
import RnmAPI

/// `rnmctl locations …`
struct LocationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "locations", abstract: "Locations and their residents.",
                                                    subcommands: [List.self, Show.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List locations, a page at a time.")
        @Option(help: "Page, from 1.") var page: Int?
        @Option(help: "Part of the name.") var name: String?
        @Option(help: "Part of the type.") var type: String?
        @Option(help: "Part of the dimension.") var dimension: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.locationsList, LocationListParams(page: page, name: name, type: type, dimension: dimension)) { page in
                print(Table(headers: ["ID", "NAME", "TYPE", "DIMENSION", "RESIDENTS"],
                            rows: page.items.map { [String($0.id), $0.name, $0.type, $0.dimension, String($0.residentIds.count)] }).render())
                print(pageFooter(page: page.page, pages: page.pages, count: page.count, noun: "locations", command: "rnmctl locations list"))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a location with its residents.")
        @Argument(help: "The location's id.") var id: Int
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.locationsGet, IDParams(id: id)) { detail in
                print(Terminal.bold("\(detail.location.name) (#\(detail.location.id))"))
                print(Fields(pairs: [("Type", detail.location.type), ("Dimension", detail.location.dimension),
                                     ("Created", detail.location.created)]).render())
                print("  Residents (\(detail.residents.count)):")
                printCharacters(detail.residents)
            }
        }
    }
}

/// `rnmctl episodes …`
struct EpisodesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "episodes", abstract: "Episodes and their characters.",
                                                    subcommands: [List.self, Show.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List episodes, a page at a time.")
        @Option(help: "Page, from 1.") var page: Int?
        @Option(help: "Part of the name.") var name: String?
        @Option(help: "Part of the code, e.g. S01.") var episode: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.episodesList, EpisodeListParams(page: page, name: name, episode: episode)) { page in
                print(Table(headers: ["ID", "CODE", "NAME", "AIR DATE"],
                            rows: page.items.map { [String($0.id), $0.code, $0.name, $0.airDate] }).render())
                print(pageFooter(page: page.page, pages: page.pages, count: page.count, noun: "episodes", command: "rnmctl episodes list"))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show an episode with its characters.")
        @Argument(help: "The episode's id.") var id: Int
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.episodesGet, IDParams(id: id)) { detail in
                print(Terminal.bold("\(detail.episode.code) \(detail.episode.name) (#\(detail.episode.id))"))
                print(Fields(pairs: [("Air date", detail.episode.airDate), ("Created", detail.episode.created)]).render())
                print("  Characters (\(detail.characters.count)):")
                printCharacters(detail.characters)
            }
        }
    }
}

/// `rnmctl favorites …`
struct FavoritesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "favorites", abstract: "Favorite characters.",
                                                    subcommands: [Add.self, Remove.self, List.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mark a character as a favorite.")
        @Argument(help: "The character's id.") var id: Int
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.favoritesAdd, IDParams(id: id)) { print("character \($0.id) is a favorite") }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unmark a favorite.")
        @Argument(help: "The character's id.") var id: Int
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.favoritesRemove, IDParams(id: id)) { print("character \($0.id) is not a favorite") }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List favorite characters.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.favoritesList, NoParams()) { list in
                printCharacters(list.items)
                print("\(list.items.count) favorites")
            }
        }
    }
}
