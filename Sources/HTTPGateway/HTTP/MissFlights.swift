import Synchronization

/// One Gateway call at a time per micro-cache key (nginx's `proxy_cache_lock`): when a burst of
/// clients asks for the same answer while the micro-cache has none, the first one asks the
/// Gateway and the others wait for it, then read what it kept. Without it, a burst of 3,000
/// reads of one record against a cold micro-cache made 3,000 calls, queued for the link's slots
/// behind each other until the request timeout (issue 39). An answer that is not kept (fetched
/// for this request, stale, an error) lets each waiter make its own call, as nginx does.
final class MissFlights: Sendable {
    private let waiting = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])

    /// Runs `leader` if no call for `key` is in flight (true), or waits until the one in flight
    /// ends (false). Each waiter is a connection the ``ConnectionGate`` admitted, so the waiters
    /// are bounded by `RNM_HTTP_MAX_CONNECTIONS`; each waits at most as long as the leader's
    /// call, which the request timeout bounds.
    func lead<T>(_ key: String, _ leader: () async throws -> T) async rethrows -> T? {
        let follows: Bool = waiting.withLock { flights in
            if flights[key] != nil { return true }
            flights[key] = []
            return false
        }
        if follows {
            await withCheckedContinuation { continuation in
                let queued = waiting.withLock { flights -> Bool in
                    guard flights[key] != nil else { return false }
                    flights[key]!.append(continuation)
                    return true
                }
                // The leader ended between the two locks: nothing to wait for.
                if !queued { continuation.resume() }
            }
            return nil
        }
        defer {
            let waiters = waiting.withLock { $0.removeValue(forKey: key) } ?? []
            for waiter in waiters { waiter.resume() }
        }
        return try await leader()
    }

    /// Calls for which others wait (tests).
    var inFlight: Int { waiting.withLock { $0.count } }
}
