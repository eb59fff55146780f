import Foundation
import Logging
import ServiceKit
import ServiceLifecycle
import ServiceRuntime

/// The favorites' store as configured: PostgreSQL when `RNM_FAVORITES_URL` names a database,
/// else the SQLite file (`RNM_FAVORITES_DB`, or `favorites.sqlite` beside the cache).
struct FavoritesSetup {
    let store: any FavoritesStore
    /// Its failures, for errors and health.
    let storage: StorageHealth
    /// What runs beside the server (the PostgreSQL client's connections); none for the file.
    let services: [any Service]
    /// The SQLite file, for the metrics of database sizes; nil for PostgreSQL.
    let file: String?

    static func open(
        configuration: CachingServiceConfiguration, settings: CharacterSettings, cache: CharacterDatabase,
        cacheOpening: DatabaseOpening, logger: Logger
    ) throws -> FavoritesSetup {
        if let text = settings.favoritesURL, !text.isEmpty {
            // Favorites an older version kept in the cache file are left there: they are one
            // process's, and the shared list is not this replica's to fill.
            let store = PostgresFavorites(url: try PostgresURL(text), logger: logger)
            return FavoritesSetup(
                store: store, storage: StorageHealth(path: store.location, logger: logger), services: [store],
                file: nil)
        }
        let path = try FavoritesDatabase.checkedPath(
            settings.favoritesPath ?? FavoritesDatabase.path(besideCache: configuration.databasePath),
            cachePath: configuration.databasePath)
        try DefaultPaths.createDirectory(for: path)
        let (favorites, opening) = try FavoritesDatabase.openSettingAsideDamage(path: path, logger: logger)
        try favorites.adopt(from: cache)
        if let setAside = cacheOpening.setAside {
            do {
                try favorites.adopt(fromSetAside: setAside)
            } catch {
                logger.warning("favorites in the damaged cache \(setAside) could not be read: \(error)")
            }
        }
        let storage = StorageHealth(path: path, logger: logger)
        storage.note(opening)
        return FavoritesSetup(store: favorites, storage: storage, services: [], file: path)
    }
}
