import NIOCore

// MARK: - Deadlines

extension RPCClient {
    // One timer per client rather than one per request: a timer per request was a tenth of
    // the Gateway's time (scheduling and cancelling in NIO's timer heap, for requests that
    // almost all answer in microseconds). A sweep runs at the earliest pending deadline; it
    // fails what is due and schedules the next. With one timeout for every request, deadlines
    // come in order and a new request schedules nothing.

    /// Restarts the deadline of request `id` (a progress notification came for it). Later than
    /// before, so the sweep already scheduled comes first.
    func restartDeadline(_ id: Int64) {
        state.withLock { state in
            guard let timeout = state.pending[id]?.timeout else { return }
            state.pending[id]?.deadline = .now() + timeout
        }
    }

    /// Whether a sweep must be scheduled for a new deadline (earlier than the next sweep).
    static func needsSweep(at deadline: NIODeadline?, _ state: inout State) -> NIODeadline? {
        guard let deadline, state.sweepAt.map({ deadline < $0 }) ?? true else { return nil }
        state.sweepAt = deadline
        return deadline
    }

    func scheduleSweep(at deadline: NIODeadline) {
        // Weak: a sweep superseded by an earlier one is not cancelled, and must not keep a
        // closed client alive until it fires.
        let sweep = channel.eventLoop.scheduleTask(deadline: deadline) { [weak self] in
            self?.sweepDeadlines(scheduledAt: deadline)
            return ()
        }
        state.withLock { state in
            if state.sweepAt == deadline { state.sweep = sweep }
        }
    }

    /// Fails every request past its deadline with -32004 (and tells the server: `rpc.cancel`),
    /// then schedules the next sweep.
    private func sweepDeadlines(scheduledAt: NIODeadline) {
        let now = NIODeadline.now()
        let (expired, next) = state.withLock { state -> ([(Int64, Pending)], NIODeadline?) in
            if state.sweepAt == scheduledAt { (state.sweepAt, state.sweep) = (nil, nil) }
            var due: [Int64] = []
            var earliest: NIODeadline?
            for (id, pending) in state.pending {
                guard let deadline = pending.deadline else { continue }
                if deadline <= now {
                    due.append(id)
                } else if earliest.map({ deadline < $0 }) ?? true {
                    earliest = deadline
                }
            }
            let expired = due.compactMap { id in state.removePending(id).map { (id, $0) } }
            return (expired, Self.needsSweep(at: earliest, &state))
        }
        if let next { scheduleSweep(at: next) }
        for (id, request) in expired {
            cancelOnServer(id)
            let milliseconds = (request.timeout?.nanoseconds ?? 0) / 1_000_000
            request.complete(.failure(RPCError.timedOut(service, milliseconds: milliseconds)))
        }
    }
}

extension RPCClient.State {
    /// Removes request `id` from the pending requests (and its origin's entry).
    mutating func removePending(_ id: Int64) -> RPCClient.Pending? {
        guard let pending = pending.removeValue(forKey: id) else { return nil }
        if let origin = pending.origin, byOrigin[origin] == id { byOrigin[origin] = nil }
        return pending
    }
}
