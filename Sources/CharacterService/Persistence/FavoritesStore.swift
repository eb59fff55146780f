import Foundation
import ServiceKit

/// Where the favorites live: a SQLite file beside the cache (``FavoritesDatabase``, one
/// process's own), or a PostgreSQL database (``PostgresFavorites``) that several
/// CharacterService replicas share, chosen by `RNM_FAVORITES_URL`.
protocol FavoritesStore: Sendable {
    /// Where, for errors and health: a file's path, or a server's address without its password.
    var location: String { get }

    /// Marks character `id` a favorite at `date` (kept as it was if it already is one), or not.
    func setFavorite(id: Int, _ favorite: Bool, at date: Date) async throws

    /// Favorite ids, oldest first.
    func ids() async throws -> [Int]

    /// How many favorites there are, for `characters.health`; nil when the store cannot say now
    /// (its failure recorded in `storage`). It must answer at once whatever the store does: the
    /// Gateway's probe gives health `RNM_HEALTH_TIMEOUT_MS` (2 s by default, 1 s at least), and a
    /// slow answer would mark the whole service down.
    func healthCount(recordingIn storage: StorageHealth) async -> Int?
}

extension FavoritesStore {
    func healthCount(recordingIn storage: StorageHealth) async -> Int? {
        try? await storage.required("the favorites", action: "read", logged: false) { try await ids().count }
    }
}

extension FavoritesDatabase: FavoritesStore {
    var location: String { pool.path }
}
