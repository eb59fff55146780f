/// Who a request is for: the client that first sent it (an HTTP client's address at the HTTP
/// front, a connection of the Gateway's otherwise), carried through every hop so that waits
/// for a shared resource (the upstream's connections, the HTTP front's link) are served in
/// turn between clients, not first come first served (issue 35, finding 8).
///
/// Within a process it is a task-local; between processes it travels in the frame's `client`
/// member (docs/PROTOCOL.md §3), set by the Gateway.
public enum RequestClient {
    @TaskLocal private static var client: String?

    /// The client of the current task's request, if it has one.
    public static var current: String? { client }

    /// Runs `body` with `client` as the current client (as it is when `client` is nil).
    public static func with<T>(_ client: String?, _ body: () async throws -> T) async rethrows -> T {
        guard let client else { return try await body() }
        return try await $client.withValue(client, operation: body)
    }

    /// The longest name kept (a longer one is cut: it only tells clients apart).
    public static let maxBytes = 64
}
