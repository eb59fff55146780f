import NIOCore
import Telemetry

extension RPCConnection {
    // MARK: - Writing

    /// Writes a request's reply: a -32006 error instead when it is over the frame limit, a
    /// -32005 error instead when replies already waiting fill the connection's budget.
    func writeReply(_ reply: ByteBuffer, rawID: ByteBuffer?, method: String?) {
        var frame = reply
        do {
            try FrameTooLargeError.check(
                frame, maxFrameBytes: configuration.maxFrameBytes,
                what: "the reply to \(RPCError.excerpt(method ?? "this request"))")
        } catch {
            logger.warning("reply over the frame limit replaced by an error", metadata: ["error": "\(error)"])
            frame = Frames.errorResponse(rawID: rawID, error: RPCError(mapping: error, service: service))
        }
        if frame.readableBytes - FrameDecoder.headerSize > configuration.maxFrameBytes {
            // Even the error is over the limit (the id alone is nearly a whole frame).
            budget.beginWrite()
            writeCounted(frame)
            return
        }
        let size = frame.readableBytes
        if budget.reserveReply(bytes: size, policy: replyPolicy) {
            writer.write(frame, then: .releaseReply(budget, bytes: size))
            return
        }
        let error = Self.droppedReply(budget: budget, service: service)
        metrics.refused(budget.process.hasRoomForReply(bytes: size) ? .unreadBytes : .processUnreadBytes)
        logger.notice("reply dropped: the client is not reading", metadata: ["bytes": "\(size)"])
        budget.beginWrite()
        writeCounted(Frames.errorResponse(rawID: rawID, error: error))
    }

    /// When this connection's replies may be dropped.
    var replyPolicy: ConnectionBudget.ReplyPolicy {
        guard configuration.dropsUnreadReplies else { return .always }
        return holdsReplies.load(ordering: .relaxed) ? .held : .withinBudgets
    }

    /// The error that stands for a reply dropped because the client is not reading.
    static func droppedReply(budget: ConnectionBudget, service: String) -> RPCError {
        RPCError(
            .overloaded,
            """
            reply dropped: this connection already has replies waiting unread, up to its limit of \
            \(budget.maxBytes) bytes (RNM_CONNECTION_BUFFER_BYTES) or the process's over all connections \
            (RNM_MAX_UNREAD_BYTES); read replies as they come, then retry
            """,
            service: service)
    }

    /// Writes a notification (progress) when it fits in a frame and in the budget; otherwise
    /// drops it: progress is advice, and the final reply still comes.
    func writeNotification(_ frame: ByteBuffer) {
        guard
            (try? FrameTooLargeError.check(frame, maxFrameBytes: configuration.maxFrameBytes, what: "a notification"))
                != nil,
            budget.reserveReply(bytes: frame.readableBytes)
        else { return }
        let size = frame.readableBytes
        writer.write(frame, then: .releaseReply(budget, bytes: size))
    }

    /// Writes an error frame already counted as work, then counts it done; its bytes count
    /// against the budget until written. An error that repeats a huge request id could itself
    /// be over the limit: it is then sent with `id: null`.
    func writeCounted(_ frame: ByteBuffer?) {
        guard var frame else {
            budget.finishWrite()
            return
        }
        if frame.readableBytes - FrameDecoder.headerSize > configuration.maxFrameBytes {
            let error = RPCError(
                .tooLarge, "the error for this request would be over the frame limit with its id; send a shorter id",
                service: service)
            frame = Frames.errorResponse(rawID: nil, error: error)
        }
        let size = frame.readableBytes
        budget.holdBytes(size)
        writer.write(frame, then: .releaseCounted(budget, bytes: size))
    }
}
