import RnmAPI

/// A kind's list screen (`/app/characters?name=&status=&page=`): the filters as a form, the page's
/// cards, "page N of M" with previous and next (the filters kept), and a refresh button that
/// asks the upstream first. The filters come from ``RecordKind`` (the one place they are
/// written), so the three kinds share this screen.
struct ListScreen {
    struct FilterField {
        struct Option {
            var value: String
            /// As the cards and a record's page show the value ("Alive").
            var label: String
            var selected: Bool
        }

        var name: String
        var label: String
        var value: String
        /// The filter's fixed values (a menu); none for a text filter.
        var options: [Option]
    }

    struct Pager {
        var summary: String
        var previous: String?
        var next: String?
    }

    struct RefreshForm {
        struct Field {
            var name: String
            var value: String
        }

        var action: String
        var fields: [Field]
    }

    var frame: PageFrame
    var heading: String
    /// The filters form's target: the kind's screen.
    var action: String
    var filters: [FilterField]
    /// Where "Clear filters" goes, when filters are given.
    var clear: String?
    /// "2 set" when filters are given: the folded filters' line says so, and they stay open.
    var filtersSet: String?
    var refresh: RefreshForm?
    var cards: [Card]
    var pager: Pager?

    init<Record: CardRecord>(
        _ type: Record.Type, page result: Fresh<Page<Record>>, query: PublicQuery, csrf: String
    ) {
        let kind = Record.kind
        let heading = PageFrame.label(of: .list(kind)) ?? kind.plural.capitalized
        let given = Self.filters(kind, query)
        frame = PageFrame(
            title: result.page > 1 ? "\(heading), page \(result.page)" : heading, current: .list(kind),
            freshness: [result.freshness], csrf: csrf)
        self.heading = heading
        action = kind.appPath
        filters = kind.filters.map { name in
            let value = query.filter(name) ?? ""
            let fixed = kind.fixedValues[name] ?? []
            return FilterField(
                name: name, label: name.capitalized, value: value,
                options: fixed.map { .init(value: $0, label: $0.capitalized, selected: $0 == value.lowercased()) })
        }
        clear = given.isEmpty ? nil : kind.appPath
        filtersSet = given.isEmpty ? nil : "\(given.count) set"
        refresh =
            kind == .character
            ? RefreshForm(
                action: WebRoute.refreshCharacters.path,
                fields: (given + [("page", String(result.page))]).map { .init(name: $0.0, value: $0.1) })
            : nil
        cards = result.items.map(\.card)
        let noun = result.count == 1 ? kind.rawValue : kind.plural
        func href(_ page: Int) -> String { Self.link(kind, given: given, page: page) }
        pager =
            result.pages == 0
            ? nil
            : Pager(
                summary: "Page \(result.page) of \(result.pages) · \(result.count) \(noun)",
                previous: result.page > 1 && result.page <= result.pages ? href(result.page - 1) : nil,
                next: result.page < result.pages ? href(result.page + 1) : nil)
    }

    /// The kind's filters `query` gives, in the kind's order.
    static func filters(_ kind: RecordKind, _ query: PublicQuery) -> [(String, String)] {
        kind.filters.compactMap { name in query.filter(name).map { (name, $0) } }
    }

    /// A page of the kind's screen with those filters (no `page` for the first).
    static func link(_ kind: RecordKind, given: [(String, String)], page: Int) -> String {
        WebApp.link(kind.appPath, given + (page > 1 ? [("page", String(page))] : []))
    }
}
