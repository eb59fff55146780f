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

/// One university, from the cache (the list's data: no second upstream request).
struct UniversityScreen {
    var frame: PageFrame
    var name: String
    var country: String
    var countryHref: String
    var stateProvince: String
    var domains: [String]
    var webPages: [String]

    init(_ detail: Fresh<UniversityDetail>, csrf: String) {
        let university = detail.university
        frame = PageFrame(
            title: university.name, current: "/app/universities", freshness: [detail.freshness], csrf: csrf)
        name = university.name
        country = university.country
        countryHref = WebApp.link("/app/universities", [("country", university.country)])
        stateProvince = university.stateProvince ?? "—"
        domains = university.domains
        // Only web links: a page from the upstream could hold anything.
        webPages = university.webPages.filter { $0.hasPrefix("http://") || $0.hasPrefix("https://") }
    }
}
