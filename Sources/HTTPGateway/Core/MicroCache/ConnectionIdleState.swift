import NIOCore

/// The HTTP front's idle timeout (`RNM_HTTP_IDLE_TIMEOUT_MS`), kept by ``MicroCacheHitHandler``
/// because Hummingbird's connection state handler cannot see the hits answered below it. Its
/// rules are Hummingbird's (`HTTPConnectionStateHandler`): a connection is closed once nothing
/// has been read of a request and nothing answered for the timeout, unless a request has been
/// read whole and its answer is still being made (the request timeout covers that one). The
/// start of a head that never ends does not count as activity (a slow-loris client is closed).
/// A body's bytes do, so a body is also given a time in all (`RNM_HTTP_BODY_TIMEOUT_MS`, from its
/// head): a byte a minute would otherwise hold the connection for as long as the body is long.
struct ConnectionIdleState {
    /// What the timer does when it fires.
    enum Check: Equatable {
        case close
        /// A body still coming past its time in all.
        case bodyTimedOut
        case wait(until: NIODeadline)
        /// Nothing until the answer in the making ends (``answerEnded()`` says when to check).
        case leave
    }

    let timeout: TimeAmount?
    let bodyTimeout: TimeAmount?
    private var lastActive = NIODeadline.now()
    /// When the head of the request whose body is still coming was read (held here, or read by
    /// Hummingbird's side).
    private var bodySince: NIODeadline?
    /// Requests read by Hummingbird's side whose answers have not ended.
    private var inProgress = 0
    /// Whether one of those is still being read (its body).
    private var beingRead = false

    init(timeout: Duration?, bodyTimeout: Duration?) {
        self.timeout = timeout.map { TimeAmount($0) }
        self.bodyTimeout = bodyTimeout.map { TimeAmount($0) }
    }

    /// When to check first, from now (nil: no timeout).
    mutating func start() -> NIODeadline? {
        lastActive = .now()
        return timeout.map { lastActive + $0 }
    }

    mutating func hitAnswered() {
        lastActive = .now()
    }

    /// A `POST`'s head held by the bytes' reader until its body comes, or a part of that body:
    /// activity, as a head or body part read by Hummingbird's side is.
    /// - Returns: when its body's time runs out, if this starts one (for a check then).
    mutating func heldBodyRead() -> NIODeadline? {
        lastActive = .now()
        return startBody()
    }

    /// The held body has come whole.
    mutating func heldBodyEnded() {
        bodySince = nil
    }

    /// - Returns: when the body's time runs out, if this head starts one (for a check then).
    mutating func partRead(isHead: Bool, isEnd: Bool) -> NIODeadline? {
        lastActive = .now()
        var due: NIODeadline?
        if isHead {
            inProgress += 1
            beingRead = true
            due = startBody()
        }
        if isEnd {
            beingRead = false
            bodySince = nil
            due = nil
        }
        return due
    }

    /// A body's time starts, unless one has (a held request passed on keeps the time its head
    /// was first read).
    private mutating func startBody() -> NIODeadline? {
        guard bodySince == nil else { return nil }
        bodySince = lastActive
        return bodyTimeout.map { lastActive + $0 }
    }

    /// An answer ended; when to check next, if the connection is now between requests.
    mutating func answerEnded() -> NIODeadline? {
        inProgress = max(0, inProgress - 1)
        guard inProgress == 0, let timeout else { return nil }
        lastActive = .now()
        return lastActive + timeout
    }

    func check(now: NIODeadline = .now()) -> Check {
        if inProgress > 0, !beingRead { return .leave }
        let bodyDue = bodySince.flatMap { since in bodyTimeout.map { since + $0 } }
        if let bodyDue, now >= bodyDue { return .bodyTimedOut }
        let idleDue = timeout.map { lastActive + $0 }
        if let idleDue, now >= idleDue { return .close }
        guard let due = [idleDue, bodyDue].compactMap({ $0 }).min() else { return .leave }
        return .wait(until: due)
    }
}
