import ServiceRuntime

/// The CharacterService's own settings, beside the caching-service template's
/// (`CachingServiceConfiguration`); each default is its ``Setting``'s.
struct CharacterSettings: Sendable {
    /// `RNM_CHARACTERS_MAX_LIST_PAGES`.
    var maxListPages = Defaults.charactersMaxListPages
    /// `RNM_CHARACTERS_STALE_WHILE_REVALIDATE`, in seconds.
    var staleWhileRevalidate = Defaults.charactersStaleWhileRevalidate
    /// `RNM_CHARACTERS_MAX_RECORDS`.
    var maxRecords = Defaults.charactersMaxRecords
    /// `RNM_CHARACTERS_MAX_ABSENT_IDS`.
    var maxAbsentIDs = Defaults.charactersMaxAbsentIDs
    /// `RNM_FAVORITES_DB`; nil for `favorites.sqlite` beside the cache.
    var favoritesPath: String?
    /// `RNM_FAVORITES_URL`: a PostgreSQL database the favorites live in (shared by replicas);
    /// nil or empty for the SQLite file.
    var favoritesURL: String?
}
