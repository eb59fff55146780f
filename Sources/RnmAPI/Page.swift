/// One page of a paged list.
public struct Page<Item: Codable & Sendable>: Codable, Sendable {
    /// This page's number, from 1.
    public var page: Int
    /// How many pages there are.
    public var pages: Int
    /// How many items there are in all pages.
    public var count: Int
    /// This page's items (empty past the end or when nothing matches).
    public var items: [Item]
}

extension Page: Equatable where Item: Equatable {}
