/// A `progress` notification's params.
public struct ProgressUpdate: Codable, Sendable, Equatable {
    public var done: Int
    public var total: Int
    public var message: String

    public init(done: Int, total: Int, message: String) {
        self.done = done
        self.total = total
        self.message = message
    }
}
