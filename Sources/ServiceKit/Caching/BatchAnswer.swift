import Foundation
import RnmAPI

/// What a read of many values at once answers
/// (``CachePolicy/readMany(_:stored:fetchedAt:absent:fetch:missing:otherwise:)``): the values
/// found, one freshness for the batch (its oldest stored copy, or how the rest was fetched), and
/// the keys neither stored nor checked because the upstream failed (they may exist: they are not
/// "missing").
public struct BatchAnswer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The values found, stored or fetched, by key.
    public var values: [Key: Value]
    /// Where the batch came from and how fresh it is.
    public var freshness: Freshness
    /// Keys not stored and not checked: the upstream failed.
    public var unchecked: Set<Key>

    public init(_ values: [Key: Value], _ freshness: Freshness, unchecked: Set<Key> = []) {
        self.values = values
        self.freshness = freshness
        self.unchecked = unchecked
    }
}
