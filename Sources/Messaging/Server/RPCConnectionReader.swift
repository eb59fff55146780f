import NIOCore

/// Reads one connection's frames on its event loop and hands each to its ``RPCConnection``
/// where it arrives: no task and no async hop per frame.
///
/// It also holds the connection's back-pressure, by withholding NIO's `read()`:
/// - past the connection's byte budget, the socket is not read until replies and requests
///   drain (frames already decoded wait here, at most one read's worth);
/// - a notification that finds every request slot taken waits here for one, and so does
///   everything read after it (a notification has no reply to carry a -32005);
/// - while the client is not taking its replies (the channel is not writable), it is not read
///   either, and past ``sendTimeout`` of that it is disconnected (Redis'
///   `client-output-buffer-limit`): a client that pipelines without reading costs what its
///   socket buffers hold, not what it can send (issue 35, finding 7).
///
/// Reading ends when the client closes or half-closes, after a bad frame (answered first), or
/// when ``stop()`` is called (draining, forced shutdown); ``readingEnded`` completes then. A
/// half-close or a bad frame that arrives while frames are held ends reading only once those
/// are accepted: the frames before it were sent whole, and get their replies first.
final class RPCConnectionReader: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum State {
        case reading
        /// Waiting for room in the budget (or, `forSlot`, for a request slot).
        case paused
        case stopped
    }

    private let connection: RPCConnection
    /// Told when reads are withheld here, so that the frame timer does not count that time.
    private let pauses: ReadPauses
    private let readingEndedPromise: EventLoopPromise<Void>
    private var state = State.reading
    /// Frames read but not yet accepted, oldest first: only while paused.
    private var held = CircularBuffer<ByteBuffer>()
    /// NIO asked for a read while paused: it is made once reading resumes.
    private var readWithheld = false
    /// How reading ends once the frames held are accepted (a half-close or a bad frame that
    /// came while paused): nil to keep reading, or the bad frame's error (nil inside for a
    /// half-close).
    private var endAfterHeld: (any Error)??
    private var context: ChannelHandlerContext?
    /// How long the client may take none of its replies (`RNM_UNREAD_TIMEOUT_MS`).
    private let sendTimeout: TimeAmount
    /// Closes the connection once the client has taken nothing for ``sendTimeout``.
    private var sendTimer: Scheduled<Void>?

    init(connection: RPCConnection, eventLoop: any EventLoop, pauses: ReadPauses, sendTimeout: TimeAmount) {
        self.connection = connection
        self.pauses = pauses
        self.sendTimeout = sendTimeout
        self.readingEndedPromise = eventLoop.makePromise()
    }

    /// Completes when the connection is no longer read.
    var readingEnded: EventLoopFuture<Void> { readingEndedPromise.futureResult }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
        self.context = nil
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .reading where held.isEmpty:
            accept(unwrapInboundIn(data))
        case .reading, .paused:
            held.append(unwrapInboundIn(data))
        case .stopped:
            break
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client half-closed: nothing more will arrive; replies still go out.
        if let event = event as? ChannelEvent, event == .inputClosed { end(badFrame: nil) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        sendTimer?.cancel()
        sendTimer = nil
        stop()
        context.fireChannelInactive()
    }

    /// Not writable: replies wait for the client. Reading waits with them, and a timer runs;
    /// writable again: both go on.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            sendTimer?.cancel()
            sendTimer = nil
            // The frame timer counts again (whether or not a read was withheld meanwhile): a
            // pause left set would switch the slow-frame guard off for good.
            if state == .reading { pauses.resume(now: context.eventLoop.now) }
            if state == .reading, held.isEmpty, readWithheld {
                readWithheld = false
                context.read()
            }
        } else if sendTimer == nil {
            pauses.pause()
            let channel = context.channel
            let logger = connection.logger
            let timeout = sendTimeout
            sendTimer = context.eventLoop.scheduleTask(in: sendTimeout) {
                logger.notice(
                    "closing a connection that took none of its replies",
                    metadata: ["timeout-ms": "\(timeout.nanoseconds / 1_000_000)"])
                channel.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard state != .stopped else { return }
        if error is FrameDecoderError || error is FrameTimeoutError {
            end(badFrame: error)
        } else {
            connection.logger.debug("connection read ended", metadata: ["error": "\(error)"])
            stop()
        }
    }

    /// Ends reading after a half-close (`badFrame` nil) or a bad frame (answered), once the
    /// frames held before it are accepted.
    private func end(badFrame: (any Error)?) {
        guard state != .stopped else { return }
        guard held.isEmpty, state == .reading else {
            if endAfterHeld == nil { endAfterHeld = .some(badFrame) }
            return
        }
        if let badFrame { connection.refuse(badFrame: badFrame) }
        stop()
    }

    // MARK: Outbound

    func read(context: ChannelHandlerContext) {
        guard state == .reading, held.isEmpty, context.channel.isWritable else {
            readWithheld = true
            return
        }
        context.read()
    }

    // MARK: Control

    /// Stops reading: frames read from now on are dropped (on the event loop).
    func stop() {
        sendTimer?.cancel()
        sendTimer = nil
        guard state != .stopped else { return }
        state = .stopped
        held.removeAll()
        readingEndedPromise.succeed(())
    }

    /// Accepts one frame, then pauses if the budget is full or the frame must wait for a slot.
    private func accept(_ frame: ByteBuffer) {
        guard connection.accept(frame) else {
            held.prepend(frame)
            pause(needsSlot: true)
            return
        }
        if !connection.budget.hasRoom() { pause(needsSlot: false) }
    }

    private func pause(needsSlot: Bool) {
        state = .paused
        pauses.pause()
        guard let eventLoop = context?.eventLoop else { return }
        let box = NIOLoopBound(self, eventLoop: eventLoop)
        let roomNow = connection.budget.whenRoom(needsSlot: needsSlot) {
            eventLoop.execute { box.value.resume() }
        }
        if roomNow { resume() }
    }

    /// Room again: accepts the frames held, in order, until done or paused again, then reads on.
    private func resume() {
        guard state == .paused else { return }
        state = .reading
        // Still not writable: still this end's pause, not the peer's time.
        if context?.channel.isWritable ?? true { pauses.resume(now: context?.eventLoop.now ?? .now()) }
        while state == .reading, let frame = held.popFirst() {
            accept(frame)
        }
        if state == .reading, let ending = endAfterHeld {
            endAfterHeld = nil
            end(badFrame: ending)
            return
        }
        if state == .reading, readWithheld, let context, context.channel.isWritable {
            readWithheld = false
            context.read()
        }
    }
}
