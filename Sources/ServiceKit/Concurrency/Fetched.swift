import Foundation
import RnmAPI

/// What a single flight answers: the value, when it was stored, and whether the flight fetched
/// it or found it already stored by an identical flight that had just ended.
public struct Fetched<Value: Sendable>: Sendable {
    public var value: Value
    public var at: Date
    public var source: Source

    public init(value: Value, at: Date, source: Source = .upstream) {
        self.value = value
        self.at = at
        self.source = source
    }

    /// The freshness of an answer built from it.
    public var freshness: Freshness { Freshness(source: source, fetchedAt: at.rfc3339) }
}
