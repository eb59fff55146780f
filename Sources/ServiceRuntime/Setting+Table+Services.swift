extension Setting {
    /// The settings table's part for the caching services: their databases, their upstreams and
    /// how long what they fetched is kept (nil for a setting of another part).
    var serviceSpec: SettingSpec? {
        switch self {
        case .charactersDatabase:
            SettingSpec(
                "The CharacterService's SQLite cache file",
                default: .described("$XDG_DATA_HOME/rnm/characters.sqlite or ~/.local/share/rnm/characters.sqlite"),
                readers: [.characterService], flag: "database")
        case .favoritesDatabase:
            SettingSpec(
                "The CharacterService's favorites (user data), apart from the rebuildable cache",
                default: .described("favorites.sqlite in the folder of RNM_CHARACTERS_DB"),
                readers: [.characterService], flag: "favorites-database")
        case .favoritesURL:
            SettingSpec(
                "A PostgreSQL database (postgres://user:password@host:port/database) for the favorites, "
                    + "shared by every CharacterService replica; empty for the SQLite file",
                default: .described("empty: the SQLite file of RNM_FAVORITES_DB"), readers: [.characterService],
                flag: "favorites-url")
        case .universitiesDatabase:
            SettingSpec(
                "The UniversityService's SQLite cache file",
                default: .described("$XDG_DATA_HOME/rnm/universities.sqlite or ~/.local/share/rnm/universities.sqlite"),
                readers: [.universityService], flag: "database")
        case .rickAndMortyURL:
            SettingSpec(
                "The Rick and Morty API's base URL", default: .text("https://rickandmortyapi.com/api"),
                readers: [.characterService], flag: "upstream-url")
        case .universitiesURL:
            SettingSpec(
                "The Hipo universities API's base URL", default: .text("http://universities.hipolabs.com"),
                readers: [.universityService], flag: "upstream-url")
        case .upstreamTimeoutMilliseconds:
            SettingSpec(
                "Timeout of one upstream request, in ms", default: .integer(5000), range: 1...600_000,
                readers: .services, flag: "upstream-timeout-ms")
        case .upstreamRetryMaxMilliseconds:
            SettingSpec(
                "Longest wait between probes of a failing upstream, in ms", default: .integer(5000),
                range: 100...3_600_000, readers: .services, flag: "upstream-retry-max-ms")
        case .upstreamRetryAfterMaxMilliseconds:
            SettingSpec(
                "Longest Retry-After obeyed, in ms", default: .integer(60000), range: 0...86_400_000,
                readers: .services, flag: "upstream-retry-after-max-ms")
        case .charactersMaxAge:
            SettingSpec(
                "Seconds a cached character answer is served without asking the upstream", default: .integer(600),
                range: 0...31_536_000, readers: [.characterService], flag: "max-age")
        case .universitiesMaxAge:
            SettingSpec(
                "Seconds a cached university list is served without asking the upstream (0: always ask first)",
                default: .integer(0), range: 0...31_536_000, readers: [.universityService], flag: "max-age")
        case .charactersStaleWhileRevalidate:
            SettingSpec(
                "Seconds past the max age a stored answer is given at once while it is refreshed in the "
                    + "background; 0 turns it off", default: .integer(600), range: 0...31_536_000,
                readers: [.characterService], flag: "stale-while-revalidate")
        case .maxParamBytes:
            SettingSpec(
                "Longest string parameter (names, filters, countries), in bytes", default: .integer(256),
                range: 16...65_536, readers: .services, flag: "max-param-bytes")
        case .upstreamMaxBytes:
            SettingSpec(
                "Largest upstream response body, in bytes", default: .integer(16 * 1_048_576),
                range: 65_536...Int(Int32.max), readers: .services, flag: "upstream-max-bytes")
        case .universitiesSyncTimeoutMilliseconds:
            // The real world list is several megabytes: not one ordinary request's 5 s.
            SettingSpec(
                "Time universities.sync may take to download the whole world list, in ms",
                default: .integer(120_000), range: 1000...3_600_000, readers: [.universityService],
                flag: "sync-timeout-ms")
        case .upstreamMaxConnections:
            // libcurl's default is 6 per host; a burst of cold reads then queued past deadlines.
            SettingSpec(
                "Connections a service keeps to its upstream at once; a request waits up to its timeout for one",
                default: .integer(32), range: 1...1024, readers: .services, flag: "upstream-max-connections")
        case .charactersMaxListPages:
            SettingSpec(
                "Cached pages of filtered lists kept, least recently used evicted", default: .integer(5000),
                range: 1...10_000_000, readers: [.characterService], flag: "max-list-pages")
        case .charactersMaxRecords:
            // The real API has 826 characters, 126 locations and 51 episodes: room to grow a
            // hundredfold, while a page claiming millions fails at once instead of a sync
            // fetching (and planning) millions of pages.
            SettingSpec(
                "Records of one kind an upstream list may claim (its info.count); a page claiming more is refused",
                default: .integer(100_000), range: 1...100_000_000, readers: [.characterService], flag: "max-records")
        case .charactersMaxAbsentIDs:
            // A 404 is cacheable (RFC 9111 §4.2.2): 1,100 absent ids once cost 11 upstream
            // requests on every read. About 60 bytes each: 6 MB at the default.
            SettingSpec(
                """
                Ids the upstream said do not exist, remembered for the max age (oldest out first); 0 asks every \
                time
                """,
                default: .integer(100_000), range: 0...10_000_000, readers: [.characterService], flag: "max-absent-ids")
        case .replyCacheBytes:
            // About a thousand characters with their episodes.
            SettingSpec(
                "Bytes of finished replies kept to answer repeated reads at once; 0 turns it off",
                default: .integer(4 * 1_048_576), range: 0...1_073_741_824, readers: .services,
                flag: "reply-cache-bytes")
        default: nil
        }
    }
}
