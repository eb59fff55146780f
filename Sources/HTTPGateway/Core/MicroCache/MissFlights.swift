import Synchronization

/// One Gateway call at a time per micro-cache key (nginx's `proxy_cache_lock`, with the
/// answer shared): when a burst of clients asks for the same answer while the micro-cache has
/// none, the first one asks the Gateway and the others wait for it and get what it got. Without
/// it, a burst of 3,000 reads of one record against a cold micro-cache made 3,000 calls, queued
/// for the link's slots behind each other until the request timeout (issue 39).
final class MissFlights<Shared: Sendable>: Sendable {
    /// What a request got: its own answer as the leader, or the leader's (nil when the leader
    /// failed or had nothing to share: then the follower asks on its own).
    enum Outcome<Led> {
        case led(Led)
        case followed(Shared?)
    }

    private let waiting = Mutex<[String: [CheckedContinuation<Shared?, Never>]]>([:])

    /// Runs `leader` if no call for `key` is in flight, or waits until the one in flight ends and
    /// takes what it shares. Each waiter is a connection the ``ConnectionGate`` admitted, so the
    /// waiters are bounded by `RNM_HTTP_MAX_CONNECTIONS`; each waits at most as long as the
    /// leader's call, which the request timeout bounds.
    func lead<Led>(_ key: String, _ leader: () async throws -> (Led, Shared?)) async rethrows -> Outcome<Led> {
        let follows: Bool = waiting.withLock { flights in
            if flights[key] != nil { return true }
            flights[key] = []
            return false
        }
        if follows {
            let shared: Shared? = await withCheckedContinuation { continuation in
                let queued = waiting.withLock { flights -> Bool in
                    guard flights[key] != nil else { return false }
                    flights[key]!.append(continuation)
                    return true
                }
                // The leader ended between the two locks: nothing to share.
                if !queued { continuation.resume(returning: nil) }
            }
            return .followed(shared)
        }
        var shared: Shared?
        defer {
            let waiters = waiting.withLock { $0.removeValue(forKey: key) } ?? []
            for waiter in waiters { waiter.resume(returning: shared) }
        }
        let (led, share) = try await leader()
        shared = share
        return .led(led)
    }
}
