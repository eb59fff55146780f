/// The wire's default limits (docs/PROTOCOL.md §2 and §7). Processes take theirs from their
/// settings; these are what a server or client gets when it is not told otherwise.
public enum WireLimits {
    /// The largest frame payload: 1 MiB.
    public static let maxFrameBytes = 1_048_576
    /// What one connection may hold in a server: 4 MiB.
    public static let connectionBufferBytes = 4 * 1_048_576
    /// Requests one connection may have in flight in a server.
    public static let maxInFlightPerConnection = 4096
    /// Client connections a server keeps open at once.
    public static let maxConnections = 1024
    /// Bytes of replies waiting unread over all of a server's connections: 256 MiB.
    public static let maxUnreadBytes = 256 * 1_048_576
    /// How long a started frame may stay incomplete, in ms.
    public static let frameTimeoutMilliseconds = 10_000
    /// How long a client may take none of its replies before a server disconnects it, in ms.
    public static let unreadTimeoutMilliseconds = 30_000
}
