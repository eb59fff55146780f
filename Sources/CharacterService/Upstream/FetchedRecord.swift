import Foundation

/// A record as fetched: the fields the service indexes, and the record in the protocol's shape,
/// encoded once, to be stored and spliced into replies as it is.
struct FetchedRecord: Sendable {
    var id: Int
    /// Indexed columns (name, status, code, air date, ...).
    var columns: [String: String]
    /// The ids it links to: a character's episodes, a location's residents, an episode's characters.
    var related: [Int]
    /// The protocol-shaped record (`Character`, `Location` or `Episode`), encoded.
    var json: Data
}
