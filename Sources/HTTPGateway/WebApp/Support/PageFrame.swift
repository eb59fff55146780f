import RnmAPI

/// What every page shows around its content: its title, the screens, the freshness notice,
/// the form token.
struct PageFrame {
    struct NavLink {
        var href: String
        var label: String
        var current: Bool
    }

    /// A banner above the content: a person's sentence (up to the time it names, if any), and
    /// what the upstream itself said, kept as a detail for whoever wants it.
    struct Notice {
        var text: String
        var at: TimeText?
        var detail: String?
    }

    /// The screen's own title (nil on the home page).
    var title: String?
    /// The tab's title: the screen's, then rnm's name ("rnm" alone on the home page).
    var documentTitle: String
    var nav: [NavLink]
    var notice: Notice?
    var csrf: String
    var assetVersion = WebAssets.version
    var version = rnmVersion

    /// The screens, in the bar's order (`current` is marked for assistive technology too), with
    /// what each is for (the home page says it): each screen's title is its label here.
    static let screens: [(path: String, label: String, about: String)] = [
        (RecordKind.character.appPath, "Characters", "cards with filters and pages, pull-to-refresh as a button"),
        (RecordKind.location.appPath, "Locations", "places and who lives there"),
        (RecordKind.episode.appPath, "Episodes", "every episode and its characters"),
        ("/app/favorites", "Favorites", "the characters you marked"),
        ("/app/stats", "Statistics", "characters per status"),
        ("/app/universities", "Universities", "universities by country, every name whole"),
        ("/app/offline", "Offline", "the offline mirror and the upstreams"),
    ]

    /// The label of the screen at `path` in ``screens``.
    static func label(of path: String) -> String? {
        screens.first { $0.path == path }?.label
    }

    /// A page titled `title` (nil: the home page), in the bar under `current`; `freshness` of
    /// what it shows from `service`'s upstream, for the notice.
    init(
        title: String?, current: String?, freshness: [Freshness?] = [], service: ServiceName = .characters,
        csrf: String
    ) {
        self.title = title
        documentTitle = title.map { "\($0) · rnm" } ?? "rnm"
        self.csrf = csrf
        nav = Self.screens.map { NavLink(href: $0.path, label: $0.label, current: $0.path == current) }
        notice = Self.notice(freshness.compactMap { $0 }, service)
    }

    /// One of the bar's screens, titled by its label there.
    init(screen path: String, freshness: [Freshness?] = [], service: ServiceName = .characters, csrf: String) {
        self.init(title: Self.label(of: path), current: path, freshness: freshness, service: service, csrf: csrf)
    }

    /// "The Rick and Morty API could not be reached; showing data cached at …" when any part of
    /// the page came from the cache because the upstream failed (the reason as a detail).
    static func notice(_ parts: [Freshness], _ service: ServiceName) -> Notice? {
        guard let stale = parts.first(where: \.stale) else { return nil }
        return staleNotice(stale, service, because: stale.upstreamError)
    }

    /// The notice of data from the cache at `freshness.fetchedAt` because of `reason`, after `lead`.
    static func staleNotice(
        _ freshness: Freshness, _ service: ServiceName, because reason: String?, lead: String = ""
    ) -> Notice {
        let sentence = UpstreamTrouble(reason ?? "").sentence(service)
        return Notice(
            text: "\(lead)\(sentence); \(UpstreamTrouble.showingCached)", at: TimeText(freshness.fetchedAt),
            detail: reason)
    }
}
