import Foundation
import Synchronization

/// The real Rick and Morty data (a 2019 snapshot of the API's own seed, see
/// Fixtures/SOURCES.md), served the way the real API serves it.
public final class RickAndMortyFixtures: Sendable {
    /// How the API says "nothing here": one server version answers 404, another 200 with null info.
    public enum EmptyStyle: Sendable {
        case notFound
        case nullInfo
    }

    /// The public host the payloads name (never to be contacted).
    public static let publicBase = "https://rickandmortyapi.com/api"

    nonisolated(unsafe) static let characters = load("characters.json")
    nonisolated(unsafe) static let locations = load("locations.json")
    nonisolated(unsafe) static let episodes = load("episodes.json")

    private let settings = Mutex<(empty: EmptyStyle, linkBase: String)>((.notFound, publicBase))
    private let overrides = Mutex<(@Sendable (UpstreamRequest) -> UpstreamResponse?)?>(nil)

    /// Answers some requests differently (a redirect, a huge avatar); nil falls through to the data.
    public var override: (@Sendable (UpstreamRequest) -> UpstreamResponse?)? {
        get { overrides.withLock { $0 } }
        set { overrides.withLock { $0 = newValue } }
    }

    public init() {}

    /// How empty pages are answered.
    public var emptyStyle: EmptyStyle {
        get { settings.withLock { $0.empty } }
        set { settings.withLock { $0.empty = newValue } }
    }

    /// The base written into every URL of the payloads (`info.next`, `image`, `url`, links).
    /// Point it at another server to check that the service never follows them.
    public var linkBase: String {
        get { settings.withLock { $0.linkBase } }
        set { settings.withLock { $0.linkBase = newValue } }
    }

    /// All records of a kind (`character`, `location`, `episode`), sorted by id.
    public static func records(_ kind: String) -> [[String: Any]] {
        switch kind {
        case "character": characters
        case "location": locations
        case "episode": episodes
        default: []
        }
    }

    /// The avatar the test upstream serves for character `id`: the five that ship, in turn
    /// (the real API has one for every character).
    public static func servedAvatar(_ id: Int) -> Data? {
        guard (1...characters.count).contains(id) else { return nil }
        return avatar((id - 1) % 5 + 1)
    }

    /// The avatar bytes of character `id`, for the five that ship.
    public static func avatar(_ id: Int) -> Data? {
        guard let url = Bundle.module.url(forResource: "Fixtures/rickandmorty/avatars/\(id).jpeg", withExtension: nil) else { return nil }
        return try? Data(contentsOf: url)
    }

    /// Answers like the API: lists with filters and pages of 20, one id, many ids, avatars.
    @Sendable public func route(_ request: UpstreamRequest) -> UpstreamResponse {
        if let answer = override?(request) { return answer }
        var parts = request.path.split(separator: "/").map(String.init)
        if parts.first == "api" { parts.removeFirst() }
        guard let kind = parts.first, ["character", "location", "episode"].contains(kind) else { return notFound("There is nothing here") }
        if parts.count == 3, kind == "character", parts[1] == "avatar" {
            let id = Int(parts[2].replacingOccurrences(of: ".jpeg", with: "")) ?? 0
            guard let bytes = Self.servedAvatar(id) else { return notFound("There is nothing here") }
            return UpstreamResponse(status: 200, contentType: "image/jpeg", body: Array(bytes))
        }
        if parts.count == 2 {
            let ids = parts[1].split(separator: ",").compactMap { Int($0) }
            let all = Self.records(kind)
            if !parts[1].contains(",") {
                guard let id = ids.first, let record = all.first(where: { $0["id"] as? Int == id }) else {
                    return notFound("\(kind.capitalized) not found")
                }
                return json(record)
            }
            // Many ids: no particular order (here: reversed), duplicates collapsed, missing left out.
            let wanted = Set(ids)
            return json(Array(all.filter { wanted.contains($0["id"] as? Int ?? 0) }.reversed()))
        }
        return list(kind, query: request.query)
    }

    private func list(_ kind: String, query: [String: String]) -> UpstreamResponse {
        let page = Int(query["page"] ?? "1") ?? 1
        let filterNames = ["name", "status", "species", "type", "gender", "dimension", "episode"]
        let matching = Self.records(kind).filter { record in
            filterNames.allSatisfy { name in
                guard let wanted = query[name]?.lowercased(), !wanted.isEmpty else { return true }
                let value = (record[name] as? String ?? "").lowercased()
                // The real server (models/Character.js): a value beginning with "male" matches
                // from the start of the field only.
                return kind == "character" && wanted.hasPrefix("male") ? value.hasPrefix(wanted) : value.contains(wanted)
            }
        }
        let pages = (matching.count + 19) / 20
        guard page >= 1, page <= pages else {
            return emptyStyle == .notFound ? notFound("There is nothing here") : json(["info": NSNull(), "results": []] as [String: Any])
        }
        let slice = Array(matching[((page - 1) * 20)..<min(page * 20, matching.count)])
        let base = linkBase
        let info: [String: Any] = [
            "count": matching.count, "pages": pages,
            "next": page < pages ? "\(base)/\(kind)?page=\(page + 1)" as Any : NSNull(),
            "prev": page > 1 ? "\(base)/\(kind)?page=\(page - 1)" as Any : NSNull(),
        ]
        return json(["info": info, "results": slice] as [String: Any])
    }

    private func notFound(_ message: String) -> UpstreamResponse {
        UpstreamResponse(status: 404, body: Array(#"{"error":"\#(message)"}"#.utf8))
    }

    private func json(_ value: Any) -> UpstreamResponse {
        var data = try! JSONSerialization.data(withJSONObject: value)
        let base = linkBase
        if base != Self.publicBase {
            let text = String(decoding: data, as: UTF8.self).replacingOccurrences(of: Self.publicBase.replacingOccurrences(of: "/", with: "\\/"), with: base.replacingOccurrences(of: "/", with: "\\/"))
            data = Data(text.utf8)
        }
        return UpstreamResponse(status: 200, body: Array(data))
    }

    static func load(_ name: String) -> [[String: Any]] {
        let url = Bundle.module.url(forResource: "Fixtures/rickandmorty/\(name)", withExtension: nil)!
        return try! JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [[String: Any]]
    }
}
