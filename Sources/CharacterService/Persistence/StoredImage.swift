import Foundation

/// A stored avatar.
struct StoredImage: Sendable {
    var contentType: String
    var bytes: Data
    var fetchedAt: Date
}
