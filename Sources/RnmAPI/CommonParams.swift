/// Params of a method that takes none.
public struct NoParams: Codable, Sendable, Equatable {
    public init() {}
}

/// Params that name one record by id.
public struct IDParams: Codable, Sendable, Equatable {
    public var id: Int
    public init(id: Int) { self.id = id }
}

/// Params that name up to 100 records by id.
public struct IDsParams: Codable, Sendable, Equatable {
    public var ids: [Int]
    public init(ids: [Int]) { self.ids = ids }
}
