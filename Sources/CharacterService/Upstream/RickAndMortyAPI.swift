import RnmAPI
import Foundation
import ServiceKit
import ServiceRuntime

/// The Rick and Morty REST API, called only at its configured base: where characters,
/// locations, episodes and avatars come from.
struct RickAndMortyAPI: Sendable {
    let fetcher: URLSessionFetcher
    /// The most records of one kind a list may claim (`RNM_CHARACTERS_MAX_RECORDS`).
    var maxRecords = Defaults.charactersMaxRecords

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
    /// With `validator`, asked conditionally: `.notModified` when the stored copy is current.
    func page(
        _ resource: RecordKind, page: Int, filters: [(String, String)],
        validator: Validator? = nil
    ) async throws(UpstreamError) -> Revalidated<FetchedPage> {
        let answer = try await fetcher.get(
            path: "/\(resource.rawValue)", query: [("page", String(page))] + filters,
            validator: validator)
        if answer.notModified, validator != nil { return .notModified }
        if answer.status == 404, Self.isNothingHere(answer.body) { return .modified(.empty, nil) }
        try answer.expectOK()
        let decoded: APIPage = try Self.decode(APIPage.self, resource: resource, from: answer.body)
        guard let info = decoded.info else { return .modified(.empty, nil) }
        let records = (decoded.results ?? []).map(\.record)
        try Self.check(info, records: records.count, of: resource, maxRecords: maxRecords)
        return .modified(FetchedPage(count: info.count, pages: info.pages, records: records), answer.validator)
    }

    /// The records with these ids; missing ids are left out. One id may be asked conditionally
    /// (`validator`): `.notModified` when the stored copy is current.
    func records(
        _ resource: RecordKind, ids: [Int],
        validator: Validator? = nil
    ) async throws(UpstreamError) -> Revalidated<[FetchedRecord]> {
        var records: [FetchedRecord] = []
        var received: Validator?
        var start = 0
        while start < ids.count {
            let chunk = Array(ids[start..<min(start + Self.idsPerRequest, ids.count)])
            start += Self.idsPerRequest
            let path = "/\(resource.rawValue)/" + chunk.map(String.init).joined(separator: ",")
            // Only a request for one record is conditional: a validator is per request.
            let answer = try await fetcher.get(path: path, query: [], validator: ids.count == 1 ? validator : nil)
            if answer.notModified, ids.count == 1, validator != nil { return .notModified }
            if answer.status == 404 { continue }
            try answer.expectOK()
            if chunk.count == 1 {
                received = ids.count == 1 ? answer.validator : nil
                records.append(try Self.decode(AnyRecord.self, resource: resource, from: answer.body).record)
            } else {
                records += try Self.decode([AnyRecord].self, resource: resource, from: answer.body).map(\.record)
            }
        }
        return .modified(records, received)
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

    /// A page's totals are believed only as far as they agree with each other and the limit:
    /// `pages` is what `count` fills (``RecordKind/pages(holding:)``, as its server computes it),
    /// and a page holds at most ``RecordKind/pageSize`` records. A sync plans from these numbers;
    /// one wrong answer must not have it plan millions of pages.
    static func check(
        _ info: APIPage.Info, records: Int, of resource: RecordKind, maxRecords: Int
    ) throws(UpstreamError) {
        let size = RecordKind.pageSize
        guard info.count >= 0, info.count <= maxRecords else {
            throw .badPayload(
                """
                a page of \(resource.plural) claims \(info.count) of them, over RNM_CHARACTERS_MAX_RECORDS \
                (\(maxRecords))
                """)
        }
        let pages = RecordKind.pages(holding: info.count)
        guard info.pages == pages, records <= size else {
            throw .badPayload(
                """
                a page of \(resource.plural) claims \(info.pages) pages and holds \(records) records for a count \
                of \(info.count); the API's pages hold \(size), so \(pages) pages
                """)
        }
    }

    private static func isNothingHere(_ body: Data) -> Bool {
        (try? JSONDecoder().decode([String: String].self, from: body))?["error"] != nil
    }

    private static func decode<T: Decodable>(
        _ type: T.Type, resource: RecordKind, from body: Data
    ) throws(UpstreamError) -> T {
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
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return "image/webp"
        }
        return nil
    }
}
