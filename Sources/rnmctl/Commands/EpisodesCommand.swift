import ArgumentParser
import Messaging
import RnmAPI

/// `rnmctl episodes …`
struct EpisodesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "episodes", abstract: "Episodes and their characters.",
        discussion: Help.examples(
            "rnmctl episodes list --episode S01", "rnmctl episodes show 1", "rnmctl episodes show S01E01"),
        subcommands: [List.self, Show.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List episodes, a page at a time.",
            discussion: Help.examples(
                "rnmctl episodes list", "rnmctl episodes list --episode S03", "rnmctl episodes list --name rick"),
            aliases: ["ls"])
        @Option(help: "Page, from 1.") var page: Int?
        @Option(help: "Part of the name.") var name: String?
        @Option(help: "Part of the code, e.g. S01.") var episode: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let params = EpisodeListParams(page: page, name: name, episode: episode)
            try await global.perform(RPCMethods.episodesList, params) { page in
                try printPage(
                    page, noun: "episodes", query: global.invocation("rnmctl episodes list").filterOptions(params),
                    wide: global.wide,
                    columns: [.init("ID"), .init("CODE"), .init("NAME"), .init("AIR DATE", dropPriority: 1)],
                    row: { [String($0.id), $0.code, $0.name, $0.airDate] })
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show an episode with its characters.",
            discussion: Help.examples("rnmctl episodes show 1", "rnmctl episodes show S01E01"), aliases: ["get"])
        @Argument(help: "The episode's id, or its code (S01E01).") var episode: String
        @OptionGroup var global: GlobalOptions

        func validate() throws {
            guard Int(episode) != nil || episode.wholeMatch(of: #/[Ss]\d{2}[Ee]\d{2}/#) != nil else {
                throw ValidationError("EPISODE must be an id (1) or a code (S01E01), got \"\(episode)\"")
            }
        }

        func run() async throws {
            var id = Int(episode)
            if id == nil {
                // A code: find its id first (one list page, from the cache when fresh).
                let code = episode.uppercased()
                try await global.perform(
                    RPCMethods.episodesList, EpisodeListParams(episode: code), printsResultJSON: false,
                    noticesStale: false
                ) { page in
                    id = page.items.first { $0.code == code }?.id
                    // Not found in a stale list: the notice says why it may be missing.
                    if id == nil { global.announceIfStale(page, from: .characters) }
                }
                guard id != nil else {
                    try await global.runReporting { throw CLIFailure.nothingFound("no episode \(code)") }
                    return
                }
            }
            try await global.perform(RPCMethods.episodesGet, IDParams(id: id!)) { detail in
                print(Terminal.bold("\(detail.episode.code) \(detail.episode.name) (#\(detail.episode.id))"))
                print(
                    Fields(pairs: [("Air date", detail.episode.airDate), ("Created", detail.episode.created)]).render())
                print("  Characters (\(detail.characters.count)):")
                printCharacters(detail.characters, wide: global.wide, nested: true)
            }
        }
    }
}
