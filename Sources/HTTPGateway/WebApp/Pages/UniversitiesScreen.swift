import RnmAPI

/// A country's universities, every name whole (names wrap, never cut), each a link to its own page.
struct UniversitiesScreen {
    struct Item {
        var name: String
        var href: String
        var place: String?
    }

    /// Why a country has no universities, in rnmctl's words, and whether the offline mirror is
    /// still to be made (the Offline page makes it).
    struct Empty {
        var sentence: String
        var unsynced: Bool
    }

    var frame: PageFrame
    var country: String
    var name: String
    var summary: String
    var items: [Item]
    var noUniversities: Empty?

    /// `mirrorComplete`: whether the universities' offline mirror is made (asked only for an
    /// empty country; nil when not asked or not known).
    init(_ list: Fresh<UniversityList>, name: String?, mirrorComplete: Bool? = nil, csrf: String) {
        frame = PageFrame(
            title: "Universities of \(list.country)", current: .universities, freshness: [list.freshness],
            service: .universities, csrf: csrf)
        country = list.country
        self.name = name ?? ""
        let total = list.total.map { " of \($0)" } ?? ""
        summary = "\(list.count)\(total) universities"
        items = list.items.map { university in
            Item(
                name: university.name, href: WebApp.universityPath(university),
                place: list.country == allCountries ? university.country : university.stateProvince)
        }
        if Self.countryIsEmpty(list) {
            let sentence = UniversityList.noneIn(list.country)
            noUniversities = Empty(
                sentence: sentence.prefix(1).uppercased() + sentence.dropFirst() + ".",
                unsynced: mirrorComplete == false)
            summary = ""
        }
    }

    /// A country (not the search of every country) with no university at all, before the name filter.
    static func countryIsEmpty(_ list: Fresh<UniversityList>) -> Bool {
        list.country != allCountries && (list.total ?? list.count) == 0
    }
}
