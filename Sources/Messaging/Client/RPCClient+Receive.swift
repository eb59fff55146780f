#if canImport(Glibc)
    import Glibc
#endif
import NIOCore
import Synchronization

extension RPCClient {
    // MARK: - Event loop side

    func receive(_ payload: ByteBuffer) {
        guard let envelope = Envelope.canonicalResponse(payload) ?? (try? Envelope(parsing: payload)) else { return }
        switch envelope.kind {
        case .response:
            guard let id = envelope.integerID else { return }
            guard let pending = state.withLock({ $0.removePending(id) }) else { return }
            if let refusal = pending.dropReply?() {
                pending.complete(.failure(refusal))
            } else {
                pending.complete(.success(envelope))
            }
        case .notification:
            guard let range = envelope.progressRequestIDRange,
                let id = Envelope.integer(in: envelope.slice(range))
            else { return }
            let handler = state.withLock { $0.pending[id]?.onProgress }
            handler?(envelope)
            restartDeadline(id)
        case .request:
            return
        }
    }

    func failAll(reason: String) {
        let (pending, sweep) = state.withLock { state -> ([Pending], Scheduled<Void>?) in
            if state.closedReason == nil { state.closedReason = reason }
            defer { (state.pending, state.byOrigin) = ([:], [:]) }
            return (Array(state.pending.values), state.sweep)
        }
        sweep?.cancel()
        let error = RPCError(.serviceUnavailable, reason, service: service)
        for request in pending {
            request.complete(.failure(error))
        }
    }

    /// Fails request `id` if it is still pending; whether it was.
    @discardableResult
    func fail(_ id: Int64, with error: any Error) -> Bool {
        let pending = state.withLock { $0.removePending(id) }
        pending?.complete(.failure(error))
        return pending != nil
    }

    /// Tells the server that request `id` is given up on (`rpc.cancel`), so that it stops work
    /// nobody waits for. Best effort: a closed connection has nothing to stop.
    func cancelOnServer(_ id: Int64) {
        guard isActive else { return }
        writer.write(Frames.cancel(id: id), then: .none)
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        if let error = error as? ChannelError, case .connectTimeout = error { return "connect timed out" }
        return String(describing: error)
    }
}
