#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Hummingbird
import Logging
import Messaging
import NIOCore
import RnmAPI
import ServiceRuntime

/// `/api`, `/api/{character,location,episode}[/:id]` and the avatars, answered as the Rick and
/// Morty API answers them (afuh/rick-and-morty-api: `routes/`, `handlers/`, `utils/helpers.js`),
/// from the Gateway.
struct RickAndMortyEndpoints: Sendable {
    let reader: GatewayReader
    let shapes: PublicShapes
    let logger: Logger

    static let nothingHere = "There is nothing here"
    /// The Express server's own 404 for an unknown path (with the period it has there).
    static let unknownPath = "There is nothing here."

    /// `GET /api`.
    func root() -> Response {
        PublicResponse.json(
            .object([
                ("characters", .string("\(shapes.apiBase)/character")),
                ("locations", .string("\(shapes.apiBase)/location")),
                ("episodes", .string("\(shapes.apiBase)/episode")),
            ]))
    }

    /// `GET /api/<kind>[/]?page=…&filters…`: a page of 20, `next`/`prev` repeating the path and
    /// the filters; a page past the end or no match is 404.
    func list(_ kind: RecordKind, path: String, query: PublicQuery) async -> Response {
        let page = query.page
        guard !query.matchesNothing(in: kind) else { return notFoundPage() }
        do {
            let answer =
                switch kind {
                case .character: try await list(Character.self, page: page, query: query, shape: shapes.character)
                case .location: try await list(Location.self, page: page, query: query, shape: shapes.location)
                case .episode: try await list(Episode.self, page: page, query: query, shape: shapes.episode)
                }
            guard page <= answer.pages else { return notFoundPage(answer.freshness) }
            let filters = query.repeated(kind.filters)
            let link = { (page: Int) in "\(shapes.apiBase)\(path)?page=\(page)\(filters)" }
            return PublicResponse.json(
                shapes.page(
                    count: answer.count, pages: answer.pages,
                    next: page >= answer.pages ? nil : link(page + 1),
                    prev: page < 2 ? nil : link(page - 1),
                    results: answer.results),
                freshness: answer.freshness)
        } catch {
            return PublicResponse.failure(error, logger: logger)
        }
    }

    /// `GET /api/<kind>/<id>`: one record (or 404), or a JSON array of the records of a list of
    /// ids, in id order without repeats, as the API's database returns them.
    func byID(_ kind: RecordKind, segment: String) async -> Response {
        let wanted: [Int]
        let single: Bool
        switch IDSegment(segment) {
        case .badArray: return PublicResponse.error(IDSegment.badArrayMessage, status: .internalServerError)
        case .badID: return PublicResponse.error(IDSegment.badIDMessage, status: .internalServerError)
        case .one(let id): (wanted, single) = ([id], true)
        case .absent: return PublicResponse.error(kind.notFoundMessage, status: .notFound)
        case .many(let ids): (wanted, single) = (ids, false)
        }
        // Ids outside the API's range exist nowhere: no need to ask.
        let ids = Array(Set(wanted.filter(RecordKind.ids.contains))).sorted()
        do {
            let (records, freshness, unchecked) =
                switch kind {
                case .character: try await batch(Character.self, ids, shape: shapes.character)
                case .location: try await batch(Location.self, ids, shape: shapes.location)
                case .episode: try await batch(Episode.self, ids, shape: shapes.episode)
                }
            guard unchecked.isEmpty else {
                return PublicResponse.error(kind.notCachedMessage(unchecked), status: .badGateway)
            }
            if single {
                guard let record = records.first else {
                    return PublicResponse.error(kind.notFoundMessage, status: .notFound)
                }
                return PublicResponse.json(record, freshness: freshness)
            }
            return PublicResponse.json(.array(records), freshness: freshness)
        } catch {
            return PublicResponse.failure(error, logger: logger)
        }
    }

    /// `GET /api/character/avatar/<id>.jpeg`: the avatar's bytes with their own type.
    func avatar(file: String) async -> Response {
        guard file.hasSuffix(".jpeg"), let id = Int(file.dropLast(".jpeg".count)), RecordKind.ids.contains(id)
        else {
            return PublicResponse.error(Self.unknownPath, status: .notFound)
        }
        do {
            let image = try await reader.call(RPCMethods.charactersImage, IDParams(id: id))
            guard let bytes = Data(base64Encoded: image.bytes) else {
                return PublicResponse.error("the avatar of character \(id) came back damaged", status: .badGateway)
            }
            var response = PublicResponse.body(
                ByteBuffer(bytes: bytes), contentType: image.contentType, freshness: image.freshness)
            // An avatar never changes (the upstream's URL names the character): browsers and
            // the web app keep it for a year.
            response.headers[.cacheControl] = "public, max-age=31536000, immutable"
            return response
        } catch let error as RPCError where error.code == .notFound {
            return PublicResponse.error(Self.unknownPath, status: .notFound)
        } catch {
            return PublicResponse.failure(error, logger: logger)
        }
    }

    // MARK: - Calls

    /// A page of a kind's list, its filters as the query string gives them.
    private func list<Record: KindRecord>(
        _ type: Record.Type, page: Int, query: PublicQuery, shape: (Record) -> JSONValue
    ) async throws -> (count: Int, pages: Int, results: [JSONValue], freshness: Freshness) {
        let result = try await reader.list(type, Record.ListParamsType(page: page, filter: query.filter))
        return (result.count, result.pages, result.items.map(shape), result.freshness)
    }

    private func batch<Record: KindRecord>(
        _ type: Record.Type, _ ids: [Int], shape: (Record) -> JSONValue
    ) async throws -> (records: [JSONValue], freshness: Freshness?, unchecked: [Int]) {
        let found = try await reader.records(type, ids)
        return (found.items.map(shape), found.freshness, found.unchecked)
    }

    private func notFoundPage(_ freshness: Freshness? = nil) -> Response {
        var response = PublicResponse.error(Self.nothingHere, status: .notFound)
        if let freshness { response.headers.append(contentsOf: PublicResponse.freshnessHeaders(freshness)) }
        return response
    }
}
