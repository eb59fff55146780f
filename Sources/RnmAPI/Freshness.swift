#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where an answer came from (docs/PROTOCOL.md §5).
public enum Source: String, Codable, Sendable {
    case upstream, cache
}

/// The freshness fields every result built from upstream data carries (docs/PROTOCOL.md §5).
public struct Freshness: Codable, Sendable, Equatable {
    /// Where this answer came from.
    public var source: Source
    /// True when the upstream was tried, failed, and the cache answered.
    public var stale: Bool
    /// When the data was fetched from the upstream (RFC 3339, UTC).
    public var fetchedAt: String
    /// Why the upstream could not be used; only when `stale`.
    public var upstreamError: String?
    /// True when the data is past its max age but within the stale-while-revalidate window:
    /// answered at once while a refresh runs in the background (RFC 5861). Absent otherwise.
    public var revalidating: Bool?

    /// `fetchedAt` as a date (nil if it is not RFC 3339).
    public var fetchedDate: Date? {
        Date(rfc3339: fetchedAt)
    }

    public init(
        source: Source, stale: Bool = false, fetchedAt: String, upstreamError: String? = nil,
        revalidating: Bool? = nil
    ) {
        self.source = source
        self.stale = stale
        self.fetchedAt = fetchedAt
        self.upstreamError = upstreamError
        self.revalidating = revalidating
    }
}

/// A result with the freshness fields beside its own, at the same level of the JSON object.
@dynamicMemberLookup
public struct Fresh<Value: Codable & Sendable>: Codable, Sendable {
    /// The result itself.
    public var value: Value
    /// Where it came from and how fresh it is.
    public var freshness: Freshness

    public init(_ value: Value, freshness: Freshness) {
        self.value = value
        self.freshness = freshness
    }

    public subscript<T>(dynamicMember keyPath: KeyPath<Value, T>) -> T {
        value[keyPath: keyPath]
    }

    public init(from decoder: any Decoder) throws {
        value = try Value(from: decoder)
        freshness = try Freshness(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
        try freshness.encode(to: encoder)
    }
}

extension Fresh: Equatable where Value: Equatable {}

/// A result that may carry the freshness fields: a client can tell a stale answer without
/// knowing the result's type.
public protocol FreshnessCarrying {
    /// The freshness fields, when the result has them.
    var freshness: Freshness { get }
}

extension Fresh: FreshnessCarrying {}

extension Freshness {
    /// An answer the cache gave as fresh: within its max age, or nothing newer could be had
    /// without asking (`upstreamError` set: the upstream was asked and failed, so it is stale).
    public static func cached(at date: Date, upstreamError: String? = nil) -> Freshness {
        Freshness(source: .cache, stale: upstreamError != nil, fetchedAt: date.rfc3339, upstreamError: upstreamError)
    }

    /// An answer from the cache past its max age, given at once while it is refreshed in the
    /// background (stale-while-revalidate).
    public static func revalidating(at date: Date) -> Freshness {
        Freshness(source: .cache, fetchedAt: date.rfc3339, revalidating: true)
    }

    /// An answer the upstream gave for this request, stored at `date`.
    public static func fetched(at date: Date) -> Freshness {
        Freshness(source: .upstream, fetchedAt: date.rfc3339)
    }

    /// An answer from the cache because the upstream failed, with the reason.
    public static func stale(at date: Date, because reason: String) -> Freshness {
        cached(at: date, upstreamError: reason)
    }
}

extension Freshness {
    /// The freshness of an answer made of `parts`: from the cache only if every part was, stale
    /// if any part was (with the first such part's reason), revalidating if any part was (past
    /// its max age, refreshed in the background: the answer says so and is not kept as fresh),
    /// fetched at the oldest part's time.
    public static func combined(_ parts: [Freshness]) -> Freshness {
        let stale = parts.first { $0.stale }
        return Freshness(
            source: parts.allSatisfy { $0.source == .cache } ? .cache : .upstream,
            stale: stale != nil, fetchedAt: parts.map(\.fetchedAt).min() ?? "",
            upstreamError: stale?.upstreamError,
            revalidating: parts.contains { $0.revalidating == true } ? true : nil)
    }
}
