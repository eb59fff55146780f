import ArgumentParser
import Messaging
import RnmAPI

/// `rnmctl universities …`
struct UniversitiesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "universities", abstract: "Universities by country.",
                                                    subcommands: [List.self, Show.self, Refresh.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a country's universities (asks the upstream first).")
        @Option(help: "The country (default \"United Arab Emirates\").") var country: String?
        @Option(help: "Part of the name.") var name: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.universitiesList, UniversityListParams(country: country, name: name), render: printUniversities)
        }
    }

    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Fetch a country's universities again.")
        @Option(help: "The country (default \"United Arab Emirates\").") var country: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.universitiesRefresh, UniversityListParams(country: country), render: printUniversities)
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one university (from the cache).")
        @Argument(help: "The university's exact name (any letter case).") var name: String
        @Option(help: "The country (default \"United Arab Emirates\").") var country: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.universitiesGet, UniversityGetParams(name: name, country: country)) { detail in
                let university = detail.university
                print(Terminal.bold(university.name))
                print(Fields(pairs: [
                    ("Country", "\(university.country) (\(university.alphaTwoCode))"),
                    ("State/province", university.stateProvince ?? ""),
                    ("Domains", university.domains.joined(separator: ", ")),
                    ("Web pages", university.webPages.joined(separator: ", ")),
                ]).render())
            }
        }
    }
}

private func printUniversities(_ list: Fresh<UniversityList>) {
    print(Table(headers: ["NAME", "STATE/PROVINCE", "WEB PAGE"],
                rows: list.items.map { [$0.name, $0.stateProvince ?? "-", $0.webPages.first ?? "-"] }).render())
    print("\(list.count) universities in \(list.country)")
}
