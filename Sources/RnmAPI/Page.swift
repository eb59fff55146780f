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

    public init(page: Int, pages: Int, count: Int, items: [Item]) {
        self.page = page
        self.pages = pages
        self.count = count
        self.items = items
    }
}

extension Page: Equatable where Item: Equatable {}
