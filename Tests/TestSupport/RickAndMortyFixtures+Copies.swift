import Foundation

extension RickAndMortyFixtures {
    /// The real records `scale` times over, by kind, for benchmarks of how cost grows with the
    /// data's size. Copy 0 is the real data as it is; copy `c` holds every record again with its
    /// id raised by `c` × the count of its kind, its name suffixed " (copy c+1)", and every link in
    /// it (`url`, `image`, a character's episodes, origin and location, a location's residents, an
    /// episode's characters) raised the same way within its own kind, so that each copy is as
    /// coherent as the real data: its characters appear in its episodes, live in its locations.
    static func copies(_ scale: Int) -> [String: [[String: Any]]] {
        let counts = ["character": characters.count, "location": locations.count, "episode": episodes.count]
        var all: [String: [[String: Any]]] = [:]
        for (kind, count) in counts {
            let records = Self.records(kind)
            all[kind] = (0..<scale).flatMap { copy in
                copy == 0 ? records : records.map { copied($0, copy: copy, count: count, counts: counts) }
            }
        }
        return all
    }

    /// `record` as copy `copy` holds it (`count`: the count of its kind).
    private static func copied(_ record: [String: Any], copy: Int, count: Int, counts: [String: Int]) -> [String: Any] {
        let suffix = " (copy \(copy + 1))"
        var result: [String: Any] = [:]
        for (key, value) in record {
            switch (key, value) {
            case ("id", let id as Int): result[key] = id + copy * count
            case ("name", let name as String): result[key] = name + suffix
            case (_, let link as String): result[key] = moved(link, copy: copy, counts: counts)
            case (_, let links as [String]): result[key] = links.map { moved($0, copy: copy, counts: counts) }
            // A character's origin and location: `{name, url}`, the place of the same copy; the
            // unknown place (url "") stays the one unknown place.
            case (_, var place as [String: Any]):
                if let url = place["url"] as? String, !url.isEmpty, let name = place["name"] as? String {
                    place["url"] = moved(url, copy: copy, counts: counts)
                    place["name"] = name + suffix
                }
                result[key] = place
            default: result[key] = value
            }
        }
        return result
    }

    /// A link of the payloads (`…/api/episode/5`, `…/api/character/avatar/5.jpeg`) to the same
    /// record in copy `copy`; any other text (a type, a date, "") as it is.
    private static func moved(_ link: String, copy: Int, counts: [String: Int]) -> String {
        let prefix = publicBase + "/"
        guard link.hasPrefix(prefix) else { return link }
        var parts = link.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false).map(
            String.init)
        guard let kind = parts.first, let count = counts[kind], parts.count >= 2, let last = parts.last else {
            return link
        }
        let ending = last.hasSuffix(".jpeg") ? ".jpeg" : ""
        guard let id = Int(last.dropLast(ending.count)) else { return link }
        parts[parts.count - 1] = "\(id + copy * count)\(ending)"
        return prefix + parts.joined(separator: "/")
    }
}
