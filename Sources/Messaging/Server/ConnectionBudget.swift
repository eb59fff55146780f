import Synchronization

/// What one client connection may hold in a server, counted in requests and in bytes.
///
/// - Requests (and notifications) being served count until they are answered; past
///   `maxRequests` a request is refused with -32005, and a notification waits for a slot.
/// - Bytes are those of the requests being served and of the replies waiting to be written.
///   Past `maxBytes` the connection is not read until they drain, so a client that sends
///   without reading pins at most this much memory.
/// - Work (requests being served and replies being written) decides when a draining
///   connection may close: only once nothing is owed to the client.
///
/// Admission, the draining flag and the "drained" decision share one lock, so a request read
/// after draining began is either refused with a reply or was admitted before it: never lost.
final class ConnectionBudget: Sendable {
    /// What ``admit(bytes:)`` decided.
    enum Admission: Equatable {
        /// Serve it; call ``finishRequest(bytes:)`` when it is answered.
        case admitted
        /// Too many requests in flight: answer -32005, then call ``finishWrite()``.
        case overloaded
        /// The server is shutting down: answer -32003, then call ``finishWrite()``.
        case draining
    }

    private struct State {
        var requests = 0
        var bytes = 0
        var replyBytes = 0
        var work = 0
        var draining = false
        var onIdle: [@Sendable () -> Void] = []
        var waiter: (action: @Sendable () -> Void, needsSlot: Bool)?
    }

    let maxRequests: Int
    let maxBytes: Int
    /// What all the server's connections hold together.
    let process: ProcessBudget
    private let state = Mutex(State())

    init(
        maxRequests: Int, maxBytes: Int,
        process: ProcessBudget = ProcessBudget(maxConnections: .max, maxUnreadBytes: .max)
    ) {
        self.maxRequests = maxRequests
        self.maxBytes = maxBytes
        self.process = process
    }

    /// Counts a request of `bytes` in, or says why it cannot be served.
    func admit(bytes: Int) -> Admission {
        state.withLock { state in
            state.work += 1
            if state.draining { return .draining }
            guard state.requests < maxRequests else { return .overloaded }
            state.requests += 1
            state.bytes += bytes
            return .admitted
        }
    }

    /// Requests (and notifications) being served now.
    var requestsInFlight: Int { state.withLock(\.requests) }

    /// Counts in a reply that needs no request slot (an error for an unreadable frame).
    func beginWrite() {
        state.withLock { $0.work += 1 }
    }

    /// A request is answered (its reply, if any, is already counted by ``reserveReply(bytes:policy:)``).
    func finishRequest(bytes: Int) {
        release { state in
            state.requests -= 1
            state.bytes -= bytes
            state.work -= 1
        }
    }

    /// Counts `bytes` of an error being written against the budget.
    func holdBytes(_ bytes: Int) {
        state.withLock { $0.bytes += bytes }
    }

    /// The error counted by ``holdBytes(_:)`` is written.
    func releaseBytes(_ bytes: Int) {
        release { $0.bytes -= bytes }
    }

    /// A reply or error counted by ``admit(bytes:)`` or ``beginWrite()`` is written.
    func finishWrite() {
        release { $0.work -= 1 }
    }

    /// Which budgets a reply must fit to be written, once others wait unread before it.
    enum ReplyPolicy {
        /// None: the peer is trusted to read (a service's one client, the Gateway).
        case always
        /// The connection's and the process's (a client of the Gateway).
        case withinBudgets
        /// The client reads every reply but relays many clients, so its replies pile up for a
        /// while (the HTTP front); its connection is not read meanwhile. Within the process's
        /// budget, and ``heldLimit`` waiting on this connection: a client that said so and does
        /// not read cannot take the whole process's budget from the others.
        case held
    }

    /// Counts `bytes` of reply about to be written; false, counting nothing, when replies
    /// already waiting fill the budgets `policy` names (the client is not reading): the caller
    /// sends a short error instead. A reply always goes through when nothing else is waiting.
    func reserveReply(bytes: Int, policy: ReplyPolicy = .withinBudgets) -> Bool {
        let reserved = state.withLock { state in
            let fits =
                switch policy {
                case .always: true
                case .withinBudgets: state.replyBytes + bytes <= maxBytes && process.hasRoomForReply(bytes: bytes)
                case .held: state.replyBytes + bytes <= heldLimit && process.hasRoomForReply(bytes: bytes)
                }
            guard fits || state.replyBytes == 0 else { return false }
            state.replyBytes += bytes
            state.bytes += bytes
            state.work += 1
            return true
        }
        if reserved { process.addUnread(bytes) }
        return reserved
    }

    /// Whether replies waiting unread fill half the budget or more: the client is not
    /// keeping up, and a large reply arriving now would not fit.
    var isBacklogged: Bool {
        state.withLock { $0.replyBytes >= maxBytes / 2 }
    }

    /// What a connection whose replies are held may have waiting unread: a quarter of the
    /// process's budget (64 MiB by default; the HTTP front's 256 replies in flight of 418 KB
    /// are 107 MB at the very worst, and it is not read meanwhile, so they drain first).
    var heldLimit: Int { process.maxUnreadBytes / 4 }

    /// ``isBacklogged`` for a connection whose replies are held: its own waiting replies fill
    /// its allowance, or the process's fill its budget.
    var isHeldBacklogged: Bool {
        let waiting = state.withLock { $0.replyBytes }
        return waiting >= heldLimit || (waiting > 0 && !process.hasRoomForReply(bytes: 1))
    }

    /// A reply counted by ``reserveReply(bytes:policy:)`` is written (or its connection is gone).
    func releaseReply(bytes: Int) {
        process.removeUnread(bytes)
        release { state in
            state.replyBytes -= bytes
            state.bytes -= bytes
            state.work -= 1
        }
    }

    /// Whether the bytes held are under the budget and, with `needsSlot`, a request slot is free.
    func hasRoom(needsSlot: Bool = false) -> Bool {
        state.withLock { hasRoom($0, needsSlot: needsSlot) }
    }

    /// Runs `action` once the bytes held are under the budget and, with `needsSlot`, a request
    /// slot is free: at once (returning true, `action` not called) when there is room now. One
    /// waiter at a time: the connection's reader, which waits before reading on.
    func whenRoom(needsSlot: Bool = false, _ action: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state -> Bool in
            if hasRoom(state, needsSlot: needsSlot) { return true }
            state.waiter = (action, needsSlot)
            return false
        }
    }

    /// Starts draining: `action` runs once nothing is owed to the client (at once if nothing is).
    func drain(then action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            state.draining = true
            if state.work == 0 { return true }
            state.onIdle.append(action)
            return false
        }
        if now { action() }
    }

    /// Returns once nothing is owed to the client.
    func waitUntilIdle() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state -> Bool in
                if state.work == 0 { return true }
                state.onIdle.append { continuation.resume() }
                return false
            }
            if idle { continuation.resume() }
        }
    }

    private func hasRoom(_ state: State, needsSlot: Bool) -> Bool {
        state.bytes < maxBytes && (!needsSlot || state.requests < maxRequests)
    }

    private func release(_ change: (inout State) -> Void) {
        let (waiter, idle) = state.withLock { state -> ((@Sendable () -> Void)?, [@Sendable () -> Void]) in
            change(&state)
            var idle: [@Sendable () -> Void] = []
            if state.work == 0 {
                swap(&idle, &state.onIdle)
            }
            var waiter: (@Sendable () -> Void)?
            if let waiting = state.waiter, hasRoom(state, needsSlot: waiting.needsSlot) {
                waiter = waiting.action
                state.waiter = nil
            }
            return (waiter, idle)
        }
        waiter?()
        for action in idle { action() }
    }
}
