import Foundation

/// Which of two copies of an upstream answer a cache keeps: the one whose request left later
/// (RFC 9111 §4.3.4: an older response never replaces a newer stored one). A slow fetch that
/// finishes after a refresh stored a newer copy leaves that copy alone. Copies are dated by
/// their request's departure (`fetchedAt`).
///
/// A stored copy dated after the present (the clock was stepped back since) is no evidence of
/// anything newer: it is replaced, or it would block every store until the clock caught up.
public enum CopyOrder {
    /// SQL, true when a copy dated `incoming` (an expression: `excluded.fetchedAt`, `?`) may
    /// replace the copy stored in `table`.
    public static func replaces(_ incoming: String, storedIn table: String) -> String {
        "(\(incoming) >= \(table).fetchedAt OR \(table).fetchedAt > \(now))"
    }

    /// Whether a copy dated `incoming` may replace one dated `stored` (nil: none stored).
    public static func replaces(_ incoming: Date, stored: Date?, now: Date = Date()) -> Bool {
        guard let stored else { return true }
        return incoming >= stored || stored > now
    }

    /// The present, in the seconds since 1970 that `fetchedAt` holds, by SQLite's clock (the
    /// system's, as `Date()`).
    private static let now = "((julianday('now') - 2440587.5) * 86400.0)"
}
