/// The Rick and Morty API's record kinds, each described once: the services, the HTTP front and
/// rnmctl read these facts (and extend the type with their own) instead of listing them again.
public enum RecordKind: String, Sendable, Codable, CaseIterable {
    case character, location, episode

    /// Records on one page of any list, as the API pages them.
    public static let pageSize = 20

    /// The pages a list of `count` records fills, as the API's server counts them: ``pageSize``
    /// to a page, the last one partly (0 for an empty list).
    public static func pages(holding count: Int) -> Int {
        (count + pageSize - 1) / pageSize
    }

    /// The pages a list may be asked for: past the last is never more than 20 million records
    /// (rnm's services refuse more; the HTTP front and GraphQL answer "nothing" without asking).
    public static let pages = 1...1_000_000

    /// The ids a record may have (the API's ids are 32-bit).
    public static let ids = 1...Int(Int32.max)

    /// Whether a list of this kind asked for `page` with `filter`'s values can match nothing,
    /// known without asking: a page past any list there is, or a status or gender outside its
    /// values (the API matches those as patterns; rnm knows their values). REST and GraphQL
    /// both answer it at once.
    public func matchesNothing(page: Int, filter: (String) -> String?) -> Bool {
        page > Self.pages.upperBound
            || fixedValues.contains { name, values in filter(name).map { !values.contains($0.lowercased()) } ?? false }
    }

    /// Plural: the prefix of its methods (`characters.list`) and the word in messages.
    public var plural: String { rawValue + "s" }

    /// The params of its `<plural>.list`, which name its filters.
    public var listParams: any ListParams.Type {
        switch self {
        case .character: CharacterListParams.self
        case .location: LocationListParams.self
        case .episode: EpisodeListParams.self
        }
    }

    /// The filters the API takes for this kind, in its order (its query parameters, and the
    /// params of `<plural>.list` beside `page`).
    public var filters: [String] { listParams.filterNames }

    /// The filters whose values are a fixed set (matched whole), with their values.
    public var fixedValues: [String: [String]] { listParams.fixedValues }

    /// Every filter name of every kind, without repeats, in the kinds' order.
    public static var allFilters: [String] {
        var seen = Set<String>()
        return allCases.flatMap(\.filters).filter { seen.insert($0).inserted }
    }
}

/// The params of a `<kind>.list`: a page and the kind's filters, each an optional string.
public protocol ListParams: Codable, Sendable, Equatable {
    /// The kind listed.
    static var kind: RecordKind { get }
    /// The filters, in the API's order, each with the property that holds it: the one place a
    /// kind's filters are written.
    static var filterFields: [(name: String, field: WritableKeyPath<Self, String?>)] { get }
    /// Filters with a fixed set of values, and the values (none by default).
    static var fixedValues: [String: [String]] { get }
    /// Page from 1 (default 1).
    var page: Int? { get set }
    /// No page and no filters.
    init()
}

extension ListParams {
    public static var fixedValues: [String: [String]] { [:] }

    /// The filter names, in the API's order.
    public static var filterNames: [String] { filterFields.map(\.name) }

    /// Params for `page` with each filter as `value` gives it (nil: not given).
    public init(page: Int?, filter value: (String) -> String?) {
        self.init()
        self.page = page
        for (name, field) in Self.filterFields { self[keyPath: field] = value(name) }
    }

    /// Each filter with its value (nil: not given), in the API's order.
    public var filterValues: [(name: String, value: String?)] {
        Self.filterFields.map { ($0.name, self[keyPath: $0.field]) }
    }
}
