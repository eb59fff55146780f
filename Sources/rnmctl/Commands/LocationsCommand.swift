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
