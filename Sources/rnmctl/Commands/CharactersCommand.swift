import ArgumentParser
import Foundation
import Messaging
import RnmAPI

/// `rnmctl characters …`
struct CharactersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "characters", abstract: "Rick and Morty characters.",
        subcommands: [List.self, Show.self, Refresh.self, Sync.self, Stats.self, Image.self])

    /// The filters of `list` and `refresh`.
    struct Filters: ParsableArguments {
        @Option(help: "Page, from 1.") var page: Int?
        @Option(help: "Part of the name.") var name: String?
        @Option(help: "alive, dead or unknown.") var status: String?
        @Option(help: "Part of the species.") var species: String?
        @Option(help: "Part of the type.") var type: String?
        @Option(help: "female, male, genderless or unknown.") var gender: String?

        var params: CharacterListParams {
            CharacterListParams(page: page, name: name, status: status, species: species, type: type, gender: gender)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List characters, a page at a time.")
        @OptionGroup var filters: Filters
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.charactersList, filters.params) { printPage($0, command: "rnmctl characters list") }
        }
    }

    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List characters, asking the upstream first (pull to refresh).")
        @OptionGroup var filters: Filters
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.charactersRefresh, filters.params) { printPage($0, command: "rnmctl characters refresh") }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a character with its episodes.")
        @Argument(help: "The character's id.") var id: Int
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.charactersGet, IDParams(id: id)) { detail in
                let character = detail.character
                print(Terminal.bold("\(character.name) (#\(character.id))"))
                print(Fields(pairs: [
                    ("Status", character.status), ("Species", character.species), ("Type", character.type),
                    ("Gender", character.gender), ("Origin", character.origin.name), ("Location", character.location.name),
                    ("Created", character.created), ("Image", character.image),
                ]).render())
                print("  Episodes (\(detail.episodes.count)):")
                let table = Table(headers: ["CODE", "NAME", "AIR DATE"], rows: detail.episodes.map { [$0.code, $0.name, $0.airDate] })
                print(table.render().split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
            }
        }
    }

    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mirror every character, location and episode into the cache.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let bar = ProgressDisplay()
            try await global.perform(RPCMethods.charactersSync, NoParams(), onProgress: { bar.show($0) }) { result in
                bar.finish()
                print("synced \(result.characters) characters, \(result.locations) locations, \(result.episodes) episodes "
                      + "in \(result.requests) requests (\(result.durationMs) ms)")
            }
            bar.finish()
        }
    }

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Count characters by status.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.charactersStats, NoParams()) { stats in
                print(Table(headers: ["STATUS", "CHARACTERS"], rows: [
                    ["alive", String(stats.byStatus.alive)], ["dead", String(stats.byStatus.dead)],
                    ["unknown", String(stats.byStatus.unknown)], ["total", String(stats.total)],
                ]).render())
            }
        }
    }

    struct Image: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Save a character's avatar to a file.")
        @Argument(help: "The character's id.") var id: Int
        @Option(name: .shortAndLong, help: "The file to write.") var output: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.charactersImage, IDParams(id: id)) { image in
                guard let bytes = Data(base64Encoded: image.bytes) else { throw CLIFailure.protocolError("image bytes are not base64") }
                do {
                    try bytes.write(to: URL(fileURLWithPath: output))
                } catch {
                    throw CLIFailure.usage("cannot write \(output): \(error.localizedDescription)")
                }
                print("wrote \(bytes.count) bytes (\(image.contentType)) to \(output)")
            }
        }
    }
}

/// A table of characters and the page footer.
func printPage(_ page: Fresh<Page<Character>>, command: String) {
    printCharacters(page.items)
    print(pageFooter(page: page.page, pages: page.pages, count: page.count, noun: "characters", command: command))
}

/// A table of characters, names in full.
func printCharacters(_ characters: [Character]) {
    print(Table(headers: ["ID", "NAME", "STATUS", "SPECIES", "GENDER", "LOCATION"],
                rows: characters.map { [String($0.id), $0.name, $0.status, $0.species, $0.gender, $0.location.name] }).render())
}
