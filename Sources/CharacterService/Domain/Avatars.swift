import Foundation
import Messaging
import RnmAPI
import ServiceKit

/// Avatars: fetched once, kept (they do not change), typed by their bytes.
struct Avatars: Sendable {
    let catalog: CharacterCatalog
    let flights = SingleFlight<Int, StoredImage>()

    func image(id: Int) async throws -> (image: StoredImage, freshness: Freshness) {
        let database = catalog.database
        if let stored = try await database.image(id: id) {
            return (stored, Freshness(source: .cache, fetchedAt: stored.fetchedAt.rfc3339))
        }
        do {
            let image = try await flights.run(id) {
                let bytes = try await catalog.health.recording { () async throws(UpstreamError) in try await catalog.upstream.avatar(id: id) }
                guard let bytes, let type = ImageKind.contentType(of: bytes) else { throw CharacterError.noAvatar(id: id) }
                let now = Date()
                try await database.storeImage(id: id, contentType: type, bytes: bytes, fetchedAt: now)
                return StoredImage(contentType: type, bytes: bytes, fetchedAt: now)
            }
            return (image, Freshness(source: .upstream, fetchedAt: image.fetchedAt.rfc3339))
        } catch let error as UpstreamError {
            // No such character in a complete mirror: no avatar either.
            if try await catalog.beyondMirror(.character, ids: [id]) == [id] { throw CharacterError.noAvatar(id: id) }
            throw CharacterError.upstreamUnavailable(what: "the avatar of character \(id)", error)
        }
    }
}
