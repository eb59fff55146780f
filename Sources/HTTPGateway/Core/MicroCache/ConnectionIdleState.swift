import NIOCore

/// The HTTP front's idle timeout (`RNM_HTTP_IDLE_TIMEOUT_MS`), kept by ``MicroCacheHitHandler``
/// because Hummingbird's connection state handler cannot see the hits answered below it. Its
/// rules are Hummingbird's (`HTTPConnectionStateHandler`): a connection is closed once nothing
/// has been read of a request and nothing answered for the timeout, unless a request has been
/// read whole and its answer is still being made (the request timeout covers that one). The
/// start of a head that never ends does not count as activity (a slow-loris client is closed).
struct ConnectionIdleState {
    /// What the timer does when it fires.
    enum Check: Equatable {
        case close
        case wait(until: NIODeadline)
        /// Nothing until the answer in the making ends (``answerEnded()`` says when to check).
        case leave
    }

    let timeout: TimeAmount?
    private var lastActive = NIODeadline.now()
    /// Requests read by Hummingbird's side whose answers have not ended.
    private var inProgress = 0
    /// Whether one of those is still being read (its body).
    private var beingRead = false

    init(timeout: Duration?) {
        self.timeout = timeout.map { TimeAmount($0) }
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
    mutating func heldBodyRead() {
        lastActive = .now()
    }

    mutating func partRead(isHead: Bool, isEnd: Bool) {
        lastActive = .now()
        if isHead {
            inProgress += 1
            beingRead = true
        }
        if isEnd { beingRead = false }
    }

    /// An answer ended; when to check next, if the connection is now between requests.
    mutating func answerEnded() -> NIODeadline? {
        inProgress = max(0, inProgress - 1)
        guard inProgress == 0, let timeout else { return nil }
        lastActive = .now()
        return lastActive + timeout
    }

    func check(now: NIODeadline = .now()) -> Check {
        guard let timeout else { return .leave }
        if inProgress > 0, !beingRead { return .leave }
        let due = lastActive + timeout
        return now >= due ? .close : .wait(until: due)
    }
}
