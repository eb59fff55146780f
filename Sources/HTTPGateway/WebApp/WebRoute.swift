import HTTPTypes
import RnmAPI

/// Every page, write and file of the web app, with its path and method: the one place a web app
/// path is written (as isowords puts its site's pages in its route enum). The router registers
/// each of ``all`` (``WebApp/register(on:)`` switches over them, so a new case does not compile
/// until it is served), the bar and the home page list ``screens``, the write guard takes the
/// `POST`s, and templates, screens and the script read their links and form actions here. A test
/// holds every case to an answering route.
enum WebRoute: Hashable, Sendable {
    case home
    /// A kind's list, with its filters and pages in the query.
    case list(RecordKind)
    /// A record's own page.
    case record(RecordKind, id: Int)
    /// Pull-to-refresh of a characters list (its page and filters in the form).
    case refreshCharacters
    case favorites
    /// A favorite added or removed (`action` in the form).
    case favorite(id: Int)
    case stats
    /// A country's universities (`country`, `name` in the query).
    case universities
    case refreshUniversities
    /// One university (`country`, `name` in the query).
    case university
    case offline
    case sync
    /// The sync's progress, as JSON, for the page's script.
    case syncProgress
    case stylesheet
    case script
    case icon

    /// The path of this page or write (a record's with its id).
    var path: String {
        switch self {
        case .home: "/"
        case .list(let kind): "/app/\(kind.plural)"
        case .record(let kind, let id): "/app/\(kind.plural)/\(id)"
        case .refreshCharacters: "/app/characters/refresh"
        case .favorites: "/app/favorites"
        case .favorite(let id): "/app/favorites/\(id)"
        case .stats: "/app/stats"
        case .universities: "/app/universities"
        case .refreshUniversities: "/app/universities/refresh"
        case .university: "/app/university"
        case .offline: "/app/offline"
        case .sync: "/app/offline/sync"
        case .syncProgress: "/app/offline/progress"
        case .stylesheet: "/app/assets/app.css"
        case .script: "/app/assets/app.js"
        case .icon: "/app/assets/icon.svg"
        }
    }

    /// What the router matches: the path without its first slash, an id as `:id`.
    var pattern: String {
        switch self {
        case .record(let kind, _): "app/\(kind.plural)/:id"
        case .favorite: "app/favorites/:id"
        default: String(path.dropFirst())
        }
    }

    /// `POST` for the app's writes, `GET` for everything else.
    var method: HTTPRequest.Method {
        switch self {
        case .refreshCharacters, .favorite, .refreshUniversities, .sync: .post
        default: .get
        }
    }

    /// Every route, ids standing for any id: what the router serves.
    static var all: [WebRoute] {
        [.home] + RecordKind.allCases.map(WebRoute.list) + RecordKind.allCases.map { .record($0, id: 1) } + [
            .refreshCharacters, .favorites, .favorite(id: 1), .stats, .universities, .refreshUniversities, .university,
            .offline, .sync, .syncProgress, .stylesheet, .script, .icon,
        ]
    }

    /// The screens, in the bar's order, with what each is for (the home page says it): each
    /// screen's title is its label here.
    static let screens: [(route: WebRoute, label: String, about: String)] = [
        (.list(.character), "Characters", "cards with filters and pages, pull-to-refresh as a button"),
        (.list(.location), "Locations", "places and who lives there"),
        (.list(.episode), "Episodes", "every episode and its characters"),
        (.favorites, "Favorites", "the characters you marked"),
        (.stats, "Statistics", "characters per status"),
        (.universities, "Universities", "universities by country, every name whole"),
        (.offline, "Offline", "the offline mirror and the upstreams"),
    ]

    /// Whether `path` (any case, a trailing slash or not) is one of the app's writes.
    static func isWrite(_ path: String) -> Bool {
        let asked = path.lowercased().split(separator: "/", omittingEmptySubsequences: true)
        return all.contains { route in
            guard route.method == .post else { return false }
            let segments = route.pattern.split(separator: "/")
            return segments.count == asked.count
                && zip(segments, asked).allSatisfy { $0 == $1 || ($0 == ":id" && Int($1) != nil) }
        }
    }
}
