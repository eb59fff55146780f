import Foundation
import Messaging
import RnmAPI
import ServiceKit

/// The API's JSON, decoded only to be turned into the protocol's shapes. URLs in it are never
/// followed: they are reduced to ids.
enum APIRecords {
    // The API's field names, as it writes them (`air_date`); a URL stands where an id is meant.
    struct NamedURL: Decodable {
        var name, url: String
    }

    struct APICharacter: Decodable {
        var id: Int
        var name, status, species, type, gender, image, created: String
        var origin, location: NamedURL
        var episode: [String]
    }

    struct APILocation: Decodable {
        var id: Int
        var name, created: String
        var type, dimension: String?
        var residents: [String]
    }

    struct APIEpisode: Decodable {
        var id: Int
        var name, air_date, episode, created: String
        var characters: [String]
    }

    /// The id at the end of an API URL (`…/location/20` → 20); nil for "" or anything else.
    static func id(fromURL url: String) -> Int? {
        guard let last = url.split(separator: "/").last, let id = Int(last), id > 0 else { return nil }
        return id
    }

    /// Turns one API object (a decoder positioned on it) into a stored record.
    static func record(_ resource: RecordKind, from decoder: any Decoder) throws -> FetchedRecord {
        let encoder = JSONCoding.encoder
        switch resource {
        case .character:
            let api = try APICharacter(from: decoder)
            let character = Character(
                id: api.id, name: api.name, status: api.status, species: api.species, type: api.type,
                gender: api.gender,
                origin: PlaceRef(name: api.origin.name, id: id(fromURL: api.origin.url)),
                location: PlaceRef(name: api.location.name, id: id(fromURL: api.location.url)),
                image: api.image, episodeIds: api.episode.compactMap(id(fromURL:)), created: api.created)
            return FetchedRecord(
                id: api.id,
                columns: [
                    "name": api.name, "status": api.status, "species": api.species,
                    "type": api.type, "gender": api.gender,
                ],
                related: character.episodeIds, json: try encoder.encode(character))
        case .location:
            let api = try APILocation(from: decoder)
            let location = Location(
                id: api.id, name: api.name, type: api.type ?? "", dimension: api.dimension ?? "",
                residentIds: api.residents.compactMap(id(fromURL:)), created: api.created)
            return FetchedRecord(
                id: api.id, columns: ["name": api.name, "type": location.type, "dimension": location.dimension],
                related: location.residentIds,
                json: try encoder.encode(location))
        case .episode:
            let api = try APIEpisode(from: decoder)
            let episode = Episode(
                id: api.id, name: api.name, airDate: api.air_date, code: api.episode,
                characterIds: api.characters.compactMap(id(fromURL:)), created: api.created)
            return FetchedRecord(
                id: api.id,
                columns: ["name": api.name, "code": api.episode, "episode": api.episode, "airDate": api.air_date],
                related: episode.characterIds, json: try encoder.encode(episode))
        }
    }
}

/// Decodes one API record of a resource given at decode time.
struct AnyRecord: Decodable {
    static let resourceKey = CodingUserInfoKey(rawValue: "rnm.resource")!
    let record: FetchedRecord

    init(from decoder: any Decoder) throws {
        guard let resource = decoder.userInfo[Self.resourceKey] as? RecordKind else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "no resource"))
        }
        record = try APIRecords.record(resource, from: decoder)
    }
}

/// A list page as the API returns it (`info` may be null when nothing matches).
struct APIPage: Decodable {
    struct Info: Decodable {
        var count: Int
        var pages: Int
    }

    var info: Info?
    var results: [AnyRecord]?
}
