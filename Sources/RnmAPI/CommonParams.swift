/// Params of a method that takes none.
public struct NoParams: Codable, Sendable, Equatable {
    public init() {}
}

/// Params that name one record by id.
public struct IDParams: Codable, Sendable, Equatable {
    public var id: Int
    public init(id: Int) { self.id = id }
}

/// Params that name up to ``maxIDs`` records by id.
public struct IDsParams: Codable, Sendable, Equatable {
    public var ids: [Int]
    public init(ids: [Int]) { self.ids = ids }

    /// The most ids one `getMany` takes (the API's own limit per request); a client with more
    /// asks in parts of this size.
    public static let maxIDs = 100

    /// `ids` in parts a `getMany` takes.
    public static func parts(of ids: [Int]) -> [IDsParams] {
        stride(from: 0, to: ids.count, by: maxIDs).map { IDsParams(ids: Array(ids[$0..<min($0 + maxIDs, ids.count)])) }
    }
}
