/// A `progress` notification's params, as clients decode them (services write the frame
/// directly: `Frames.progress`).
public struct ProgressUpdate: Codable, Sendable, Equatable {
    public var done: Int
    public var total: Int
    public var message: String
}
