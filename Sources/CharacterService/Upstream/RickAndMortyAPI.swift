import RnmAPI
import Foundation
import ServiceKit

/// The Rick and Morty REST API, called only at its configured base: where characters,
/// locations, episodes and avatars come from.
struct RickAndMortyAPI: Sendable {
    let fetcher: URLSessionFetcher

    /// Ids per multi-id request, to keep URLs short.
    static let idsPerRequest = 200

    var baseURL: String { fetcher.baseURL }

    /// One cheap request that succeeds when the upstream is back (``UpstreamHealth``'s probe):
    /// the API's index, `GET /api`.
    func probe() async throws(UpstreamError) {
        let answer = try await fetcher.get(path: "", query: [])
        try answer.expectOK()
        _ = try Self.decode([String: String].self, resource: .character, from: answer.body)
    }

    /// A page of a list; an empty page (not an error) past the end or when nothing matches.
    func page(_ resource: RecordKind, page: Int, filters: [(String, String)]) async throws(UpstreamError) -> FetchedPage {
        let answer = try await fetcher.get(path: "/\(resource.rawValue)", query: [("page", String(page))] + filters)
        if answer.status == 404, Self.isNothingHere(answer.body) { return .empty }
        try answer.expectOK()
        let decoded: APIPage = try Self.decode(APIPage.self, resource: resource, from: answer.body)
        guard let info = decoded.info else { return .empty }
        return FetchedPage(count: info.count, pages: info.pages, records: (decoded.results ?? []).map(\.record))
    }

    /// The records with these ids; missing ids are left out.
    func records(_ resource: RecordKind, ids: [Int]) async throws(UpstreamError) -> [FetchedRecord] {
        var records: [FetchedRecord] = []
        var start = 0
        while start < ids.count {
            let chunk = Array(ids[start..<min(start + Self.idsPerRequest, ids.count)])
            start += Self.idsPerRequest
            let path = "/\(resource.rawValue)/" + chunk.map(String.init).joined(separator: ",")
            let answer = try await fetcher.get(path: path, query: [])
            if answer.status == 404 { continue }
            try answer.expectOK()
            if chunk.count == 1 {
                records.append(try Self.decode(AnyRecord.self, resource: resource, from: answer.body).record)
            } else {
                records += try Self.decode([AnyRecord].self, resource: resource, from: answer.body).map(\.record)
            }
        }
        return records
    }

    /// An avatar's bytes; nil when there is none.
    func avatar(id: Int) async throws(UpstreamError) -> Data? {
        let answer = try await fetcher.get(path: "/character/avatar/\(id).jpeg", query: [])
        if answer.status == 404 { return nil }
        try answer.expectOK()
        guard ImageKind.contentType(of: answer.body) != nil else {
            throw .badPayload("avatar of character \(id) is not an image")
        }
        return answer.body
    }

    private static func isNothingHere(_ body: Data) -> Bool {
        (try? JSONDecoder().decode([String: String].self, from: body))?["error"] != nil
    }

    private static func decode<T: Decodable>(_ type: T.Type, resource: RecordKind, from body: Data) throws(UpstreamError) -> T {
        let first = body.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        guard first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
            let start = String(decoding: body.prefix(40), as: UTF8.self)
            throw .badPayload("expected JSON, got \(start.isEmpty ? "an empty body" : "\"\(start)…\"")")
        }
        let decoder = JSONDecoder()
        decoder.userInfo[AnyRecord.resourceKey] = resource
        do {
            return try decoder.decode(T.self, from: body)
        } catch {
            throw .badPayload("malformed JSON: \(error)")
        }
    }
}

/// Image formats recognised by their first bytes (the URL's extension is not to be trusted).
enum ImageKind {
    static func contentType(of data: Data) -> String? {
        let bytes = [UInt8](data.prefix(12))
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
        return nil
    }
}
