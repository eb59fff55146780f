import Foundation

/// A stored record: its protocol-shaped JSON and when it was fetched.
struct StoredRecord: Sendable {
    var json: Data
    /// The ids it links to (episodes, residents or characters).
    var related: [Int]
    var fetchedAt: Date
}
