/// `favorites.add` / `favorites.remove`.
public struct FavoriteState: Codable, Sendable, Equatable {
    public var id: Int
    public var favorite: Bool

    public init(id: Int, favorite: Bool) {
        self.id = id
        self.favorite = favorite
    }
}

/// `favorites.list`.
public struct FavoriteList: Codable, Sendable, Equatable {
    public var items: [Character]
}
