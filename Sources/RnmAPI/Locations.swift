/// Params of `locations.list`.
public struct LocationListParams: ListParams {
    public var page: Int?
    public var name: String?
    public var type: String?
    public var dimension: String?

    public init(page: Int? = nil, name: String? = nil, type: String? = nil, dimension: String? = nil) {
        self.page = page
        self.name = name
        self.type = type
        self.dimension = dimension
    }

    public init() {}

    public static let kind = RecordKind.location
    public static var filterFields: [(name: String, field: WritableKeyPath<Self, String?>)] {
        [("name", \.name), ("type", \.type), ("dimension", \.dimension)]
    }
}

/// A location (docs/PROTOCOL.md §6).
public struct Location: Codable, Sendable, Equatable {
    public var id: Int
    public var name: String
    public var type: String
    public var dimension: String
    public var residentIds: [Int]
    public var created: String

    public init(id: Int, name: String, type: String, dimension: String, residentIds: [Int], created: String) {
        self.id = id
        self.name = name
        self.type = type
        self.dimension = dimension
        self.residentIds = residentIds
        self.created = created
    }
}

/// `locations.get`: the location and its residents.
public struct LocationDetail: Codable, Sendable, Equatable {
    public var location: Location
    public var residents: [Character]
}
