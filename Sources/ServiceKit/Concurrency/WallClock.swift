import Foundation

/// The time of day, behind a protocol so tests can move it.
public protocol WallClock: Sendable {
    func now() -> Date
}

/// The system's clock.
public struct SystemWallClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}

extension Date {
    /// RFC 3339 in UTC, e.g. `2026-11-21T11:51:32Z` (the protocol's `fetchedAt`).
    public var rfc3339: String {
        formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: false, timeZone: .gmt))
    }
}
