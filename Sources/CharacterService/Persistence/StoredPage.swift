import Foundation

/// A stored list page: the ids on it, in order, and the list's totals.
struct StoredPage: Sendable {
    var ids: [Int]
    var count: Int
    var pages: Int
    var fetchedAt: Date
    /// When it was last stored or served (for evicting the least recently used).
    var usedAt: Date
}
