import RnmAPI

/// A country's universities, every name whole (names wrap, never cut), each a link to its own page.
struct UniversitiesScreen {
    struct Item {
        var name: String
        var href: String
        var place: String?
    }

    var frame: PageFrame
    var country: String
    var name: String
    var summary: String
    var items: [Item]

    init(_ list: Fresh<UniversityList>, name: String?, csrf: String) {
        frame = PageFrame(
            title: "Universities of \(list.country)", current: "/app/universities", freshness: [list.freshness],
            csrf: csrf)
        country = list.country
        self.name = name ?? ""
        let total = list.total.map { " of \($0)" } ?? ""
        summary = "\(list.count)\(total) universities"
        items = list.items.map { university in
            Item(
                name: university.name, href: WebApp.universityPath(university),
                place: list.country == allCountries ? university.country : university.stateProvince)
        }
    }
}
