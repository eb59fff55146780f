import Foundation

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
}

extension FavoritesDatabase: FavoritesStore {
    var location: String { pool.path }
}
