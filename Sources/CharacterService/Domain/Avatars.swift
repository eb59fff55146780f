import Foundation
import Messaging
import RnmAPI
import ServiceKit

/// Avatars: fetched once, kept (they do not change, so a stored one never expires), typed by
/// their bytes.
struct Avatars: Sendable {
    let catalog: CharacterCatalog
    let flights = SingleFlight<Int, Answer<StoredImage>>()

    func image(id: Int) async throws -> Answer<StoredImage> {
        let (database, policy) = (catalog.database, catalog.policy.forever)
        let stored = { @Sendable in try await database.image(id: id).map { Stored($0, fetchedAt: $0.fetchedAt) } }
        return try await policy.read(
            stored: try await stored(),
            fetch: {
                try await policy.fetchOnce(flights, id, stored: stored) {
                    let bytes = try await policy.upstream { () async throws(UpstreamError) in
                        try await catalog.upstream.avatar(id: id)
                    }
                    guard let bytes, let type = ImageKind.contentType(of: bytes) else {
                        throw CharacterError.noAvatar(id: id)
                    }
                    let now = Date()
                    try await policy.storage.bestEffort("the avatar of character \(id)") {
                        try await database.storeImage(id: id, contentType: type, bytes: bytes, fetchedAt: now)
                    }
                    return Answer(StoredImage(contentType: type, bytes: bytes, fetchedAt: now), .fetched(at: now))
                }
            },
            otherwise: { error in
                // No such character in a complete mirror: no avatar either.
                if try await catalog.beyondMirror(.character, ids: [id]) == [id] {
                    throw CharacterError.noAvatar(id: id)
                }
                throw CharacterError.upstreamUnavailable(what: "the avatar of character \(id)", error)
            })
    }
}
