import Foundation
import RnmAPI

/// A value and how fresh it is: what every cached read of both services answers
/// (docs/PROTOCOL.md §5). The value's properties read through it (`answer.count`).
@dynamicMemberLookup
public struct Answer<Value: Sendable>: Sendable {
    /// The value itself.
    public var value: Value
    /// Where it came from and how fresh it is.
    public var freshness: Freshness

    public init(_ value: Value, _ freshness: Freshness) {
        self.value = value
        self.freshness = freshness
    }

    public subscript<T>(dynamicMember keyPath: KeyPath<Value, T>) -> T {
        value[keyPath: keyPath]
    }

    /// The same freshness around another value.
    public func map<Other: Sendable>(_ transform: (Value) throws -> Other) rethrows -> Answer<Other> {
        Answer<Other>(try transform(value), freshness)
    }
}

/// What the cache holds for a read: the value and when it was fetched from the upstream.
public struct Stored<Value: Sendable>: Sendable {
    public var value: Value
    public var fetchedAt: Date

    public init(_ value: Value, fetchedAt: Date) {
        self.value = value
        self.fetchedAt = fetchedAt
    }
}
