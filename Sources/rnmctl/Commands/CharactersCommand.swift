import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Messaging
import RnmAPI

/// `rnmctl characters …`
struct CharactersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "characters", abstract: "Rick and Morty characters.",
        discussion: Help.examples(
            "rnmctl characters list --status alive", "rnmctl characters show 1", "rnmctl characters sync"),
        subcommands: [List.self, Show.self, Refresh.self, Sync.self, Stats.self, Image.self])

    /// The filters of `list` and `refresh`.
    struct Filters: ParsableArguments {
        @Option(help: "Page, from 1.") var page: Int?
        @Option(help: "Part of the name.") var name: String?
        @Option(help: Help.oneOf(CharacterListParams.statuses), completion: .list(CharacterListParams.statuses))
        var status: String?
        @Option(help: "Part of the species.") var species: String?
        @Option(help: "Part of the type.") var type: String?
        @Option(help: Help.oneOf(CharacterListParams.genders), completion: .list(CharacterListParams.genders))
        var gender: String?

        var params: CharacterListParams {
            CharacterListParams(page: page, name: name, status: status, species: species, type: type, gender: gender)
        }

        /// This query as a command line, without its page.
        func query(_ command: Invocation) -> Invocation {
            command.filterOptions(params)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List characters, a page at a time.",
            discussion: Help.examples(
                "rnmctl characters list", "rnmctl characters list --page 2 --name rick --gender male"), aliases: ["ls"])
        @OptionGroup var filters: Filters
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.charactersList, filters.params) {
                try printPage($0, query: filters.query(global.invocation("rnmctl characters list")), wide: global.wide)
            }
        }
    }

    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "refresh",
            abstract: "List characters, asking the upstream first (pull to refresh).",
            discussion: Help.examples("rnmctl characters refresh", "rnmctl characters refresh --status dead"))
        @OptionGroup var filters: Filters
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.charactersRefresh, filters.params) {
                try printPage(
                    $0, query: filters.query(global.invocation("rnmctl characters refresh")), wide: global.wide)
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a character with its episodes.",
            discussion: Help.examples("rnmctl characters show 1", "rnmctl --json characters show 1"), aliases: ["get"])
        @Argument(help: "The character's id.") var id: Int
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.charactersGet, IDParams(id: id)) { detail in
                let character = detail.character
                print(Terminal.bold("\(character.name) (#\(character.id))"))
                print(
                    Fields(pairs: [
                        ("Status", character.status), ("Species", character.species), ("Type", character.type),
                        ("Gender", character.gender), ("Origin", character.origin.name),
                        ("Location", character.location.name),
                        ("Created", character.created),
                        // The upstream's URL is of no use offline: the cached copy is a command away.
                        ("Avatar", "rnmctl characters image \(character.id) -o DIR (rnm's cached copy)"),
                    ]).render())
                print("  Episodes (\(detail.episodes.count)):")
                let table = Table(
                    [.init("CODE"), .init("NAME"), .init("AIR DATE", dropPriority: 1)],
                    rows: detail.episodes.map { [$0.code, $0.name, $0.airDate] })
                print(table.renderNested(wide: global.wide))
            }
        }
    }

    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract: "Mirror every character, location and episode into the cache.",
            discussion: Help.examples("rnmctl characters sync"))
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.performShowingProgress(RPCMethods.charactersSync, NoParams()) { result in
                print(
                    """
                    synced \(plural(result.characters, "character")), \(plural(result.locations, "location")), \
                    \(plural(result.episodes, "episode")) in \(plural(result.requests, "request")) \
                    (\(result.durationMs) ms)
                    """)
            }
        }
    }

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stats", abstract: "Count characters by status.",
            discussion: Help.examples("rnmctl characters stats"))
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.charactersStats, NoParams()) { stats in
                print(
                    Table(
                        headers: ["STATUS", "CHARACTERS"],
                        rows: stats.byStatus.rows.map { [$0.status, String($0.count)] } + [
                            ["total", String(stats.total)]
                        ]
                    ).render(wide: global.wide))
            }
        }
    }

    struct Image: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "image",
            abstract: "Save a character's avatar to a file, a folder (as ID.EXT) or stdout (-o -).",
            discussion: Help.examples(
                "rnmctl characters image 1 --output rick.jpeg", "rnmctl characters image 1 -o ~/Pictures",
                "rnmctl characters image 1 -o - > rick.png"))
        @Argument(help: "The character's id.") var id: Int
        @Option(name: .shortAndLong, help: "The file or folder to write, or - for stdout.", completion: .file())
        var output: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.charactersImage, IDParams(id: id), printsResultJSON: false) { image in
                guard let bytes = Data(base64Encoded: image.bytes) else {
                    throw CLIFailure.protocolError("image bytes are not base64")
                }
                let saved = try AvatarFile.write(bytes, contentType: image.contentType, id: id, to: output)
                if global.json, saved != nil {
                    print(
                        #"{"id":\#(id),"contentType":\#(JSONText.quoted(image.contentType)),"#
                            + #""bytes":\#(bytes.count),"path":\#(JSONText.quoted(saved ?? "-"))}"#
                    )
                } else if let saved {
                    print("wrote \(plural(bytes.count, "byte")) (\(image.contentType)) to \(saved)")
                }
            }
        }
    }
}

/// A page of characters and its footer.
func printPage(_ page: Fresh<Page<Character>>, query: Invocation, wide: Bool) throws {
    try printPage(
        page, noun: "characters", query: query, wide: wide, columns: characterColumns, row: characterRow)
}

/// A table of characters, names in full.
func printCharacters(_ characters: [Character], wide: Bool, nested: Bool = false) {
    let table = Table(characterColumns, rows: characters.map(characterRow))
    print(nested ? table.renderNested(wide: wide) : table.render(wide: wide))
}

/// The columns of a character table: the narrowest terminal keeps the id and the name.
let characterColumns: [Table.Column] = [
    .init("ID"), .init("NAME"), .init("STATUS", dropPriority: 2), .init("SPECIES", dropPriority: 3),
    .init("GENDER", dropPriority: 4), .init("LOCATION", dropPriority: 1),
]

/// A character as a row of ``characterColumns``.
func characterRow(_ character: Character) -> [String] {
    [
        String(character.id), character.name, character.status, character.species, character.gender,
        character.location.name,
    ]
}
