import Foundation
import Messaging
import RnmAPI
import ServiceKit

/// Avatars: fetched once, kept (they do not change), typed by their bytes.
struct Avatars: Sendable {
    let catalog: CharacterCatalog
    let flights = SingleFlight<Int, Fetched<StoredImage>>()

    func image(id: Int) async throws -> (image: StoredImage, freshness: Freshness) {
        let database = catalog.database
        if let stored = try await database.image(id: id) {
            return (stored, Freshness(source: .cache, fetchedAt: stored.fetchedAt.rfc3339))
        }
        do {
            // Avatars never change: one stored by an identical fetch that just ended is taken.
            let fetched = try await flights.run(id, reusing: {
                try await database.image(id: id).map { Fetched(value: $0, at: $0.fetchedAt, source: .cache) }
            }) {
                let bytes = try await catalog.health.recording { () async throws(UpstreamError) in try await catalog.upstream.avatar(id: id) }
                guard let bytes, let type = ImageKind.contentType(of: bytes) else { throw CharacterError.noAvatar(id: id) }
                let now = Date()
                try await database.storeImage(id: id, contentType: type, bytes: bytes, fetchedAt: now)
                return Fetched(value: StoredImage(contentType: type, bytes: bytes, fetchedAt: now), at: now)
            }
            return (fetched.value, fetched.freshness)
        } catch let error as UpstreamError {
            // No such character in a complete mirror: no avatar either.
            if try await catalog.beyondMirror(.character, ids: [id]) == [id] { throw CharacterError.noAvatar(id: id) }
            throw CharacterError.upstreamUnavailable(what: "the avatar of character \(id)", error)
        }
    }
}
