/// `characters.changes` / `universities.changes`: what a client keeping copies of a service's
/// answers needs to know whether they still hold (the HTTP front's micro-cache).
public struct DataVersion: Codable, Sendable, Equatable {
    /// Changes whenever a commit changes the service's data (a fetch stored, a refresh, a sync,
    /// an eviction: what empties its reply cache), and at each start. Opaque: compare for equality.
    public var version: String
    /// The service's max age in seconds (`RNM_CHARACTERS_MAX_AGE`, `RNM_UNIVERSITIES_MAX_AGE`):
    /// an answer from its cache stays fresh until its data is this old; 0: never from the cache.
    public var maxAge: Double

    public init(version: String, maxAge: Double) {
        self.version = version
        self.maxAge = maxAge
    }
}
