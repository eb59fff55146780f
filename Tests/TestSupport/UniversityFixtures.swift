import Foundation

/// The real Hipo data (see Fixtures/SOURCES.md), and a route that answers like the real server.
public enum UniversityFixtures {
    /// The exact body the real API returns for the United Arab Emirates (37 records).
    public static let unitedArabEmirates: Data = load("search_country_united_arab_emirates.json")

    /// The whole world list, as the file holds it.
    public static let worldData: Data = load("world_universities_and_domains.json")

    /// The whole world list (10,251 records), as raw JSON objects.
    nonisolated(unsafe) public static let world: [[String: Any]] = {
        try! JSONSerialization.jsonObject(with: worldData) as! [[String: Any]]
    }()

    /// The records of `country`, matched exactly and case-insensitively, in file order.
    public static func records(country: String) -> [[String: Any]] {
        let wanted = country.lowercased()
        return world.filter { ($0["country"] as? String)?.lowercased().equalsScalars(wanted) ?? false }
    }

    /// `GET /search?country=<name>` as the real server answers it; anything else is a 404 page.
    @Sendable public static func route(_ request: UpstreamRequest) -> UpstreamResponse {
        guard request.path == "/search" else {
            return UpstreamResponse(
                status: 404, contentType: "text/html", body: Array("<html><body>Not Found</body></html>".utf8))
        }
        let country = request.query["country"].flatMap { $0.isEmpty ? nil : $0 }
        let name = request.query["name"].flatMap { $0.isEmpty ? nil : $0.lowercased() }
        if country == nil, name == nil {
            return .json(worldData)  // the whole world list, as the real server answers `/search`
        }
        if country?.lowercased() == "united arab emirates", name == nil {
            return .json(unitedArabEmirates)
        }
        // The real server: the country matched whole and case-insensitively, the name as a
        // case-insensitive part.
        var found = country.map { records(country: $0) } ?? world
        if let name {
            found = found.filter { ($0["name"] as? String)?.lowercased().containsScalars(name) ?? false }
        }
        return .json(try! JSONSerialization.data(withJSONObject: found, options: [.sortedKeys]))
    }

    static func load(_ name: String) -> Data {
        let url = Bundle.module.url(forResource: "Fixtures/universities/\(name)", withExtension: nil)!
        return try! Data(contentsOf: url)
    }
}
