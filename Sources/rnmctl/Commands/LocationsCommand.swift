import ArgumentParser
import Messaging
import RnmAPI

/// `rnmctl locations …`
struct LocationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locations", abstract: "Locations and their residents.",
        discussion: Help.examples("rnmctl locations list --dimension C-137", "rnmctl locations show 1"),
        subcommands: [List.self, Show.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List locations, a page at a time.",
            discussion: Help.examples("rnmctl locations list", "rnmctl locations list --type planet --page 2"),
            aliases: ["ls"])
        @Option(help: "Page, from 1.") var page: Int?
        @Option(help: "Part of the name.") var name: String?
        @Option(help: "Part of the type.") var type: String?
        @Option(help: "Part of the dimension.") var dimension: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let params = LocationListParams(page: page, name: name, type: type, dimension: dimension)
            try await global.perform(RPCMethods.locationsList, params) { page in
                try printPage(
                    page, noun: "locations", query: global.invocation("rnmctl locations list").filterOptions(params),
                    wide: global.wide,
                    columns: [
                        .init("ID"), .init("NAME"), .init("TYPE", dropPriority: 2),
                        .init("DIMENSION", dropPriority: 1), .init("RESIDENTS", dropPriority: 3),
                    ],
                    row: { [String($0.id), $0.name, $0.type, $0.dimension, String($0.residentIds.count)] })
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show a location with its residents.",
            discussion: Help.examples("rnmctl locations show 1"), aliases: ["get"])
        @Argument(help: "The location's id.") var id: Int
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.locationsGet, IDParams(id: id)) { detail in
                print(Terminal.bold("\(detail.location.name) (#\(detail.location.id))"))
                print(
                    Fields(pairs: [
                        ("Type", detail.location.type), ("Dimension", detail.location.dimension),
                        ("Created", detail.location.created),
                    ]).render())
                print("  Residents (\(detail.residents.count)):")
                printCharacters(detail.residents, wide: global.wide, nested: true)
            }
        }
    }
}
