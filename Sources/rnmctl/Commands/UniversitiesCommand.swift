import ArgumentParser
import Messaging
import RnmAPI

/// `rnmctl universities …`
struct UniversitiesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "universities", abstract: "Universities by country.",
        discussion: Help.examples(
            "rnmctl universities list --country Japan", "rnmctl universities show \"Khalifa University\""),
        subcommands: [List.self, Show.self, Refresh.self, Sync.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List a country's universities (asks the upstream first).",
            discussion: Help.examples(
                "rnmctl universities list",
                "rnmctl universities list --country \"United Arab Emirates\" --name american"), aliases: ["ls"])
        @Option(
            help: Help.country(
                "; with --name and no --country, every country of the mirror that `universities sync` made"))
        var country: String?
        @Option(help: "Part of the name.") var name: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.universitiesList, UniversityListParams(country: country, name: name)) {
                printUniversities($0, asked: country, name: name, wide: global.wide)
            }
        }
    }

    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "refresh",
            abstract: "Fetch a country's universities again.",
            discussion: Help.examples("rnmctl universities refresh --country Japan"))
        @Option(help: Help.country()) var country: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.universitiesRefresh, UniversityListParams(country: country)) {
                printUniversities($0, asked: country, name: nil, wide: global.wide)
            }
        }
    }

    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract: "Mirror every university of every country for offline use (one upstream request).",
            discussion: Help.examples("rnmctl universities sync", "rnmctl universities list --name tokyo"))
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.performShowingProgress(RPCMethods.universitiesSync, NoParams()) { result in
                print(
                    """
                    synced \(plural(result.universities, "university", "universities")) of \
                    \(plural(result.countries, "country", "countries")) (\(result.durationMs) ms)
                    """
                )
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show one university (from the cache).",
            discussion: Help.examples(
                "rnmctl universities show \"Khalifa University\"",
                "rnmctl universities show \"Kyoto University\" --country Japan"), aliases: ["get"])
        @Argument(help: "The university's exact name (any letter case).") var name: String
        @Option(help: Help.country()) var country: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.universitiesGet, UniversityGetParams(name: name, country: country)) {
                detail in
                let university = detail.university
                print(Terminal.bold(university.name))
                print(
                    Fields(pairs: [
                        ("Country", "\(university.country) (\(university.alphaTwoCode))"),
                        ("State/province", university.stateProvince ?? ""),
                        ("Domains", university.domains.joined(separator: ", ")),
                        ("Web pages", university.webPages.joined(separator: ", ")),
                    ]).render())
            }
        }
    }
}

/// The table, then a line that says what the numbers mean, with a hint when nothing matched.
private func printUniversities(_ list: Fresh<UniversityList>, asked country: String?, name: String?, wide: Bool) {
    if !list.items.isEmpty {
        let everywhere = list.country == allCountries
        var columns: [Table.Column] = [
            .init("NAME"), .init("STATE/PROVINCE", dropPriority: 2), .init("WEB PAGE", dropPriority: 1),
        ]
        if everywhere { columns.insert(.init("COUNTRY"), at: 1) }
        print(
            Table(
                columns,
                rows: list.items.map { university in
                    var row = [university.name, university.stateProvince ?? "-", university.webPages.first ?? "-"]
                    if everywhere { row.insert(university.country, at: 1) }
                    return row
                }
            ).render(wide: wide))
    }
    let total = list.total ?? list.count
    if list.country == allCountries {
        print(
            list.count == 0
                ? "no university of any country has \"\(name ?? "")\" in its name"
                : "\(plural(list.count, "university", "universities")) of every country match \"\(name ?? "")\""
                    + (total > list.count ? " (the first \(list.count) of \(total))" : ""))
    } else if total == 0 {
        print(UniversityList.noneIn(list.country))
    } else if let name, !name.isEmpty {
        print(
            list.count == 0
                ? """
                no university in \(list.country) has \"\(name)\" in its name \
                (\(plural(total, "university", "universities")) there)
                """
                : "\(plural(list.count, "university", "universities")) of \(total) in \(list.country) match \"\(name)\""
        )
        // A name without a country searches every country once the mirror exists; before it,
        // only the default one (a new user read "no university" as "none anywhere").
        if country == nil {
            print(
                "only \(list.country), the default country, was searched: `rnmctl universities sync` mirrors every "
                    + "country, then --name searches them all")
        }
    } else {
        print("\(plural(list.count, "university", "universities")) in \(list.country)")
    }
}
