import Foundation

extension Date {
    /// RFC 3339 in UTC, e.g. `2026-11-21T11:51:32Z` (the protocol's `fetchedAt`).
    public var rfc3339: String {
        formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: false, timeZone: .gmt))
    }
}
