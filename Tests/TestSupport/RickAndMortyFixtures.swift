import Foundation
import Synchronization

/// The real Rick and Morty data (a 2019 snapshot of the API's own seed, see
/// Fixtures/SOURCES.md), served the way the real API serves it; or, for benchmarks of how cost
/// grows with the data's size, that data several times over (``init(scale:)``).
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

    /// Copies of the data served: 1 for the real data as it is.
    public let scale: Int
    /// The records served when `scale` is above 1 (by kind); nil: the real data, untouched.
    nonisolated(unsafe) private let copies: [String: [[String: Any]]]?

    /// Serves the real data `scale` times over (see ``copies(_:)``): 1, the default, serves it as
    /// it is, byte for byte.
    public init(scale: Int = 1) {
        precondition(scale >= 1, "a scale of at least 1")
        self.scale = scale
        copies = scale == 1 ? nil : Self.copies(scale)
    }

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

    /// The records of a kind this instance serves (the real ones, or their copies).
    func served(_ kind: String) -> [[String: Any]] {
        copies?[kind] ?? Self.records(kind)
    }

    /// The avatar the test upstream serves for character `id`, its own bytes as the real API's
    /// are: the five that ship for characters 1 to 5; for the others, one of the five in turn
    /// carrying the character's id in its metadata (a JPEG comment segment, a PNG `tEXt` chunk),
    /// still a valid image of the same picture. A mix-up of two characters' avatars shows.
    /// `scale`: of the data served (ids past the real 493 exist in the copies).
    public static func servedAvatar(_ id: Int, scale: Int = 1) -> Data? {
        guard (1...characters.count * scale).contains(id), let image = avatar((id - 1) % 5 + 1) else { return nil }
        return id <= 5 ? image : marked(image, id: id)
    }

    /// `image` with `id` written in its metadata: after the JPEG's start marker (and its JFIF
    /// segment), after the PNG's header chunk.
    static func marked(_ image: Data, id: Int) -> Data {
        let bytes = [UInt8](image)
        let note = Array("rnm test avatar of character \(id)".utf8)
        if bytes.starts(with: [0xFF, 0xD8]) {
            // After the JFIF segment when there is one (it must follow the start marker).
            let at = bytes[2...].starts(with: [0xFF, 0xE0]) ? 4 + (Int(bytes[4]) << 8 | Int(bytes[5])) : 2
            let length = note.count + 2  // the segment's length counts its own two bytes
            return Data(bytes[..<at] + [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + note + bytes[at...])
        }
        // The 8-byte signature, then IHDR: length, type, 13 bytes of data, CRC.
        let afterHeader = 8 + 4 + 4 + 13 + 4
        let typeAndData = Array("tEXt".utf8) + Array("Comment".utf8) + [0] + note
        let chunk = bigEndian(UInt32(typeAndData.count - 4)) + typeAndData + bigEndian(crc32(typeAndData))
        return Data(bytes[..<afterHeader] + chunk + bytes[afterHeader...])
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// CRC-32 (ISO 3309, as PNG's chunks use it).
    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// The avatar bytes of character `id`, for the five that ship.
    public static func avatar(_ id: Int) -> Data? {
        guard let url = Bundle.module.url(forResource: "Fixtures/rickandmorty/avatars/\(id).jpeg", withExtension: nil)
        else { return nil }
        return try? Data(contentsOf: url)
    }

    /// Answers like the API (afuh/rick-and-morty-api: `routes/`, `handlers/operations.js`,
    /// `routes/middlewares.js`): the root, lists with filters and pages of 20, one id, many ids
    /// (`1,2` or `[1,2]`, in id order as its database returns them), avatars, and its errors.
    /// Paths match case-insensitively and with a trailing slash, as Express matches them.
    @Sendable public func route(_ request: UpstreamRequest) -> UpstreamResponse {
        if let answer = override?(request) { return answer }
        var parts = request.path.split(separator: "/").map(String.init)
        guard parts.first?.lowercased() == "api" else { return notFound("There is nothing here.") }
        parts.removeFirst()
        if parts.isEmpty {
            let base = linkBase
            return json([
                "characters": "\(base)/character", "locations": "\(base)/location", "episodes": "\(base)/episode",
            ])
        }
        let kind = parts[0].lowercased()
        guard ["character", "location", "episode"].contains(kind), parts.count <= 3 else {
            return notFound("There is nothing here.")
        }
        if kind == "character", parts.count >= 2, parts[1].lowercased() == "avatar" {
            guard parts.count == 3 else { return notFound("There is nothing here") }
            // Served as static files: a file that is not there is the server's general 404.
            guard parts[2].hasSuffix(".jpeg"), let id = Int(parts[2].dropLast(5)),
                let bytes = Self.servedAvatar(id, scale: scale)
            else {
                return notFound("There is nothing here.")
            }
            return UpstreamResponse(status: 200, contentType: "image/jpeg", body: Array(bytes))
        }
        guard parts.count <= 2 else { return notFound("There is nothing here.") }
        if parts.count == 2 { return byID(kind, parts[1]) }
        return list(kind, path: String(request.path.dropFirst(4)), request: request)
    }

    /// `validateArrayParams`, then `queryById`.
    private func byID(_ kind: String, _ segment: String) -> UpstreamResponse {
        let all = served(kind)
        // JavaScript's Number: white space trimmed, "" is 0, nil for NaN.
        func number(_ text: String) -> Double? {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty ? 0 : Double(trimmed).flatMap { $0.isFinite ? $0 : nil }
        }
        var ids: [Double]?
        if segment.range(of: #"\[.+\]$"#, options: .regularExpression) != nil {
            guard let parsed = try? JSONSerialization.jsonObject(with: Data(segment.utf8)) as? [Any] else {
                return error(500, "Bad... bad array :/")
            }
            // MongoDB casts each to a number; what cannot be one matches nothing.
            ids = parsed.compactMap { element in
                if let text = element as? String { return number(text) }
                return element is NSNull || element is [Any] ? nil : (element as? NSNumber)?.doubleValue
            }
        } else if segment.contains(","), !segment.contains("["), !segment.contains("]"), segment.count > 1 {
            var numbers: [Double] = []
            for part in segment.split(separator: ",", omittingEmptySubsequences: false) {
                guard let value = number(String(part)) else { return error(500, "Hey! you must provide an id") }
                numbers.append(value)
            }
            ids = numbers
        } else if segment.contains("[") || segment.contains("]") {
            return error(500, "Bad... bad array :/")
        }
        if let ids {
            let wanted = Set(ids)
            return json(all.filter { wanted.contains(Double($0["id"] as? Int ?? 0)) })
        }
        // parseInt must give a number; then the database casts the text itself.
        let trimmed = segment.trimmingCharacters(in: .whitespaces)
        let unsigned = trimmed.hasPrefix("+") || trimmed.hasPrefix("-") ? String(trimmed.dropFirst()) : trimmed
        guard unsigned.first?.isASCII == true, unsigned.first?.isNumber == true, let id = number(segment) else {
            return error(500, "Hey! you must provide an id")
        }
        guard let record = all.first(where: { Double($0["id"] as? Int ?? 0) == id }) else {
            return notFound("\(kind.capitalized) not found")
        }
        return json(record)
    }

    /// `getAll` and `generatePageUrls`: `page` a number above 0 or else 1, filters trimmed,
    /// `next`/`prev` repeating the path as asked and the filters as given.
    private func list(_ kind: String, path: String, request: UpstreamRequest) -> UpstreamResponse {
        let query = request.query
        let pageText = (query["page"] ?? "").trimmingCharacters(in: .whitespaces)
        let page = Double(pageText).map { $0 >= 1 ? Int(min($0, 1e15)) : 1 } ?? 1
        let allowed = [
            "character": ["name", "status", "species", "type", "gender"], "location": ["name", "type", "dimension"],
            "episode": ["name", "episode"],
        ][kind]!
        func filter(_ name: String) -> String? {
            guard let value = query[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
            return value
        }
        let matching = served(kind).filter { record in
            allowed.allSatisfy { name in
                guard let wanted = filter(name)?.lowercased() else { return true }
                let value = (record[name] as? String ?? "").lowercased()
                // The real server (models/Character.js): a value beginning with "male" matches
                // from the start of the field only.
                return kind == "character" && wanted.hasPrefix("male")
                    ? value.hasScalarPrefix(wanted) : value.containsScalars(wanted)
            }
        }
        let pages = (matching.count + 19) / 20
        guard page <= pages else {
            return emptyStyle == .notFound
                ? notFound("There is nothing here") : json(["info": NSNull(), "results": []] as [String: Any])
        }
        let slice = Array(matching[((page - 1) * 20)..<min(page * 20, matching.count)])
        let repeated = request.queryKeys.compactMap { key in
            allowed.contains(key) ? filter(key).map { "&\(key)=\($0)" } : nil
        }.joined()
        let base = linkBase
        let info: [String: Any] = [
            "count": matching.count, "pages": pages,
            "next": page < pages ? "\(base)\(path)?page=\(page + 1)\(repeated)" as Any : NSNull(),
            "prev": page > 1 ? "\(base)\(path)?page=\(page - 1)\(repeated)" as Any : NSNull(),
        ]
        return json(["info": info, "results": slice] as [String: Any])
    }

    private func error(_ status: Int, _ message: String) -> UpstreamResponse {
        UpstreamResponse(status: status, body: Array(#"{"error":"\#(message)"}"#.utf8))
    }

    private func notFound(_ message: String) -> UpstreamResponse {
        UpstreamResponse(status: 404, body: Array(#"{"error":"\#(message)"}"#.utf8))
    }

    private func json(_ value: Any) -> UpstreamResponse {
        // Sorted keys: the same record is the same bytes every time, as the real server sends it
        // (its ETags, and so conditional requests, depend on that).
        var data = try! JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])
        let base = linkBase
        if base != Self.publicBase {
            let text = String(decoding: data, as: UTF8.self).replacingOccurrences(
                of: Self.publicBase.replacingOccurrences(of: "/", with: "\\/"),
                with: base.replacingOccurrences(of: "/", with: "\\/"))
            data = Data(text.utf8)
        }
        return UpstreamResponse(status: 200, body: Array(data))
    }

    static func load(_ name: String) -> [[String: Any]] {
        let url = Bundle.module.url(forResource: "Fixtures/rickandmorty/\(name)", withExtension: nil)!
        return try! JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [[String: Any]]
    }
}
