import Synchronization

/// What all the connections of one server may hold together: a number of connections (past
/// it a new one is told why and closed), and bytes of replies waiting unread. Per-connection
/// budgets alone let many connections that never read add up (200 of them held 600 MB in the
/// Gateway); past the process's budget a reply to a connection that already has replies
/// waiting is dropped (-32005), so the clients holding the most are shed first and a client
/// that reads (nothing waiting) is always answered.
public final class ProcessBudget: Sendable {
    /// Connections open at once (`RNM_MAX_CONNECTIONS`).
    public let maxConnections: Int
    /// Bytes of replies waiting unread over every connection (`RNM_MAX_UNREAD_BYTES`).
    public let maxUnreadBytes: Int
    private let connections = Atomic(0)
    private let unread = Atomic(0)

    public init(maxConnections: Int, maxUnreadBytes: Int) {
        self.maxConnections = maxConnections
        self.maxUnreadBytes = maxUnreadBytes
    }

    /// Counts a new connection in; false (counting nothing) past the cap.
    func admitConnection() -> Bool {
        guard connections.wrappingAdd(1, ordering: .relaxed).newValue <= maxConnections else {
            connections.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    /// An admitted connection is closed.
    func releaseConnection() {
        connections.wrappingSubtract(1, ordering: .relaxed)
    }

    /// Whether `bytes` more of unread replies fit.
    func hasRoomForReply(bytes: Int) -> Bool {
        unread.load(ordering: .relaxed) + bytes <= maxUnreadBytes
    }

    func addUnread(_ bytes: Int) {
        unread.wrappingAdd(bytes, ordering: .relaxed)
    }

    func removeUnread(_ bytes: Int) {
        unread.wrappingSubtract(bytes, ordering: .relaxed)
    }

    /// Connections open now, and bytes of replies waiting unread.
    public var usage: (connections: Int, unreadBytes: Int) {
        (connections.load(ordering: .relaxed), unread.load(ordering: .relaxed))
    }
}
