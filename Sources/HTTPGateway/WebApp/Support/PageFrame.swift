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

    /// The label of `screen` in ``WebRoute/screens``.
    static func label(of screen: WebRoute) -> String? {
        WebRoute.screens.first { $0.route == screen }?.label
    }

    /// The paths templates link to and post to, from ``WebRoute``.
    struct Routes {
        let universities = WebRoute.universities.path
        let refreshUniversities = WebRoute.refreshUniversities.path
        let offline = WebRoute.offline.path
        let sync = WebRoute.sync.path
        let stylesheet = WebRoute.stylesheet.path
        let script = WebRoute.script.path
        let icon = WebRoute.icon.path
    }

    var routes = Routes()

    /// A page titled `title` (nil: the home page), in the bar under `current`; `freshness` of
    /// what it shows from `service`'s upstream, for the notice.
    init(
        title: String?, current: WebRoute?, freshness: [Freshness?] = [], service: ServiceName = .characters,
        csrf: String
    ) {
        self.title = title
        documentTitle = title.map { "\($0) · rnm" } ?? "rnm"
        self.csrf = csrf
        nav = WebRoute.screens.map { NavLink(href: $0.route.path, label: $0.label, current: $0.route == current) }
        notice = Self.notice(freshness.compactMap { $0 }, service)
    }

    /// One of the bar's screens, titled by its label there.
    init(screen: WebRoute, freshness: [Freshness?] = [], service: ServiceName = .characters, csrf: String) {
        self.init(title: Self.label(of: screen), current: screen, freshness: freshness, service: service, csrf: csrf)
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
