import Foundation
import Messaging
import RnmAPI
import ServiceKit
import ServiceRuntime

/// The Hipo universities API, where universities come from: `GET /search?country=<name>`
/// answers a bare JSON array.
struct HipoUpstream: Sendable {
    let fetcher: URLSessionFetcher
    /// The world list's own deadline (`RNM_UNIVERSITIES_SYNC_TIMEOUT_MS`): several megabytes.
    var syncTimeoutMilliseconds = Defaults.universitiesSyncTimeoutMilliseconds

    /// The upstream's base URL, for health.
    var baseURL: String { fetcher.baseURL }

    /// One cheap request that succeeds when the upstream is back (``UpstreamHealth``'s probe):
    /// a name search that matches nothing answers `[]` from the server's memory.
    func probe() async throws(UpstreamError) {
        let answer = try await fetcher.get(path: "/search", query: [("name", "rnm health probe")])
        try answer.expectOK()
        _ = try Self.decode(answer.body)
    }

    /// Every university in the world, in the upstream's order: `GET /search` with no parameter.
    func world() async throws(UpstreamError) -> [University] {
        let answer = try await fetcher.get(path: "/search", query: [], timeoutMilliseconds: syncTimeoutMilliseconds)
        try answer.expectOK()
        return try Self.decode(answer.body)
    }

    /// Universities of every country whose name holds `name` (case-insensitive), as the API
    /// answers `GET /search?name=`.
    func search(name: String) async throws(UpstreamError) -> [University] {
        let answer = try await fetcher.get(path: "/search", query: [("name", name)])
        try answer.expectOK()
        return try Self.decode(answer.body)
    }

    /// Every university of `country` (exact, case-insensitive), in the upstream's order; with
    /// `validator`, asked conditionally: `.notModified` when the stored list is current.
    func universities(
        country: String, validator: Validator? = nil
    ) async throws(UpstreamError)
        -> Revalidated<[University]>
    {
        let answer = try await fetcher.get(path: "/search", query: [("country", country)], validator: validator)
        if answer.notModified, validator != nil { return .notModified }
        try answer.expectOK()
        return .modified(try Self.decode(answer.body), answer.validator)
    }

    /// One record as the API writes it (`state-province` with a hyphen; key order varies).
    private struct Record: Decodable {
        var name: String
        var country: String
        var alphaTwoCode: String?
        var stateProvince: String?
        var domains: [String]?
        var webPages: [String]?

        enum CodingKeys: String, CodingKey {
            case name, country, domains
            case alphaTwoCode = "alpha_two_code"
            case stateProvince = "state-province"
            case webPages = "web_pages"
        }
    }

    static func decode(_ body: Data) throws(UpstreamError) -> [University] {
        guard body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "[") else {
            let start = String(decoding: body.prefix(40), as: UTF8.self)
            throw .badPayload("expected a JSON array, got \(start.isEmpty ? "an empty body" : "\"\(start)…\"")")
        }
        do {
            return try JSONDecoder().decode([Record].self, from: body).map {
                University(
                    name: $0.name, country: $0.country, alphaTwoCode: $0.alphaTwoCode ?? "",
                    stateProvince: $0.stateProvince, domains: $0.domains ?? [], webPages: $0.webPages ?? [])
            }
        } catch {
            throw .badPayload("malformed JSON: \(error)")
        }
    }
}
