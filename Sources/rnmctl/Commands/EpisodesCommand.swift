import ArgumentParser
import Messaging
import RnmAPI

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
