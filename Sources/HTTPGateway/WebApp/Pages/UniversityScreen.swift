import RnmAPI

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
