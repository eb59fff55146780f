import CoreMetrics
import HTTPTypes
import NIOCore
import Telemetry

/// Answers a plain `GET` or `HEAD`, or a `POST` of GraphQL's, whose answer the micro-cache holds
/// from the request's bytes, before NIO's HTTP decoder, with one pre-encoded head and the stored body: issue 40's "the
/// HTTP front ≥ 1.0× nginx `proxy_cache`". Measured (BENCHMARKS.md "Session 18"): ~10 µs of a
/// hit's 15 µs of user CPU was NIO's HTTP pipeline around it (the request parsed into a head of
/// `String`s and passed up eight handlers, three response parts passed down seven and encoded);
/// answered here, a hit costs 7 µs of user CPU, and the front answers 1.03–1.09× nginx's hits.
///
/// A departure from the idiom (a hand-written reader of HTTP/1.1 for one kind of request), kept
/// narrow and keeping its guarantees:
/// - It frames every request (``RawRequestHead``): head, and a `Content-Length` body. A request
///   it does not answer goes on to NIO's decoder as exactly its bytes, and so does everything
///   after a head it does not frame (chunked, malformed, over `maxHeadBytes`): NIO's rules,
///   limits and errors apply to all but the plain hits.
/// - Order: a hit is answered here only while no request passed on is unanswered
///   (``answerEnded()``, from ``MicroCacheAnswerTap``).
/// - Back-pressure: while the channel is not writable a hit is passed on, and Hummingbird's
///   writer waits (as ``MicroCacheFastPath`` does); the send timeout sees writability itself.
/// - A draining front, and `Expect`, go on to Hummingbird, which says `Connection: close` where
///   it must; after HTTP/1.0, a `Connection` field other than `keep-alive` or an `Upgrade`, the
///   connection may end or change protocol, and everything goes on (``RawRequestHead/unframed``).
/// - Refusals stay Hummingbird's side's: a head NIO's decoder would refuse (over
///   `RNM_HTTP_MAX_HEADER_BYTES`, or with more fields than ``RawRequestHead/maxHitFields``) goes
///   on to it (`431`), and a connection over the caps (``ConnectionLimitHandler``) has all its
///   bytes passed on, its one answer the `503`.
/// - The idle timeout, which Hummingbird's connection state cannot see hits for, is kept here
///   with Hummingbird's rules (``ConnectionIdleState``).
final class MicroCacheHitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Mode {
        /// Reading heads.
        case framing
        /// Passing on the rest of a body.
        case body(remaining: Int)
        /// Holding a `POST` that may be a hit, its head framed, until its body has come (`total`
        /// bytes with the head): clients may send the body in a write of its own.
        case awaitingBody(total: Int)
        /// Passing everything on (after a head it does not frame).
        case passing
        /// Dropping everything (the connection is closing after its `408`).
        case discarding
    }

    let cache: ResponseCache
    let metrics: HTTPMetrics
    let drain: Drain?
    /// Connections closed for `RNM_HTTP_BODY_TIMEOUT_MS`.
    private let bodyTimeouts: Counter?
    /// The longest head held whole before it is passed on: the longest a plain GET can be.
    private let maxHeadBytes: Int
    /// The longest body read here: GraphQL's longest request (`RNM_GRAPHQL_MAX_QUERY_BYTES`); no
    /// answer is kept for a longer one.
    private let maxHitBodyBytes: Int
    /// The longest head answered here: NIO's decoder refuses one whose target and fields
    /// (without the `: ` and line ends counted here) are over `RNM_HTTP_MAX_HEADER_BYTES`.
    private let maxHitHeadBytes: Int
    private var mode = Mode.framing
    /// The start of a request whose head has not all come, or a POST's head and the part of its
    /// body come so far (``Mode/awaitingBody(total:)``).
    private var held: ByteBuffer?
    /// Requests passed on whose answers have not ended.
    private(set) var passedOn = 0
    /// Whether bytes went on since the last end of a read was passed on.
    private var passedSinceReadComplete = false
    private var idle: ConnectionIdleState
    private var idleTimer: Scheduled<Void>?
    /// When ``idleTimer`` fires.
    private var idleTimerDue: NIODeadline?
    /// Its own context, for ``answerEnded()`` (called by the tap on the same event loop).
    private var context: ChannelHandlerContext?
    /// The connection caps' handler, past this one: it decides whether the connection is
    /// refused as the connection becomes active, after this handler was added.
    weak var admission: ConnectionLimitHandler?

    init(
        cache: ResponseCache, metrics: HTTPMetrics, drain: Drain?, maxHeaderBytes: Int, maxURLBytes: Int,
        maxBodyBytes: Int, idleTimeout: Duration?, bodyTimeout: Duration?, bodyTimeouts: Counter? = nil
    ) {
        self.bodyTimeouts = bodyTimeouts
        self.maxHitBodyBytes = maxBodyBytes
        self.cache = cache
        self.metrics = metrics
        self.drain = drain
        self.maxHeadBytes = maxHeaderBytes + maxURLBytes + 64
        self.maxHitHeadBytes = maxHeaderBytes
        self.idle = ConnectionIdleState(timeout: idleTimeout, bodyTimeout: bodyTimeout)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { scheduleIdleCheck(at: idle.start(), context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        scheduleIdleCheck(at: idle.start(), context: context)
        context.fireChannelActive()
        // The caps have just decided, down the pipeline: a refused connection's one answer is
        // its refusal, so everything it sends goes on (a hit answered here would overtake it).
        if admission?.isRefused == true { mode = .passing }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        stopIdleTimer()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopIdleTimer()
        passHeld(context: context)
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The decoder is told of a half-close with what it has: the start of a request held
        // here goes to it first, so that it answers as it would have.
        // So is Hummingbird's side of a drain (`ChannelShouldQuiesceEvent`): it closes a
        // connection with no request in progress at once, and a POST held for its body is one.
        if case ChannelEvent.inputClosed = event { passHeld(context: context) }
        if event is ChannelShouldQuiesceEvent { passHeld(context: context) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        switch mode {
        case .passing:
            return pass(bytes, context: context)
        case .discarding:
            return
        case .body(let remaining):
            guard bytes.readableBytes > remaining else {
                mode = bytes.readableBytes == remaining ? .framing : .body(remaining: remaining - bytes.readableBytes)
                return pass(bytes, context: context)
            }
            mode = .framing
            pass(bytes.readSlice(length: remaining)!, context: context)
        case .awaitingBody(let total):
            scheduleIdleCheck(at: idle.heldBodyRead(), context: context)
            var start = held ?? context.channel.allocator.buffer(capacity: 0)
            held = nil
            start.writeBuffer(&bytes)
            guard start.readableBytes >= total else { return hold(start, context: context) }
            idle.heldBodyEnded()
            bytes = start
            mode = .framing
        case .framing:
            if var start = held {
                held = nil
                // Read again only once a head may have ended: a head trickled a byte at a time would
                // otherwise be read whole at each byte (quadratic in the bytes held).
                let scanned = max(0, start.readableBytes - 2)
                start.writeBuffer(&bytes)
                bytes = start
                if !RawRequestHead.mayEnd(bytes, after: scanned) {
                    guard bytes.readableBytes > maxHeadBytes else { return hold(bytes, context: context) }
                    mode = .passing
                    return pass(bytes, context: context)
                }
            }
        }
        var answered = false
        while bytes.readableBytes > 0, case .framing = mode {
            switch bytes.withUnsafeReadableBytes(RawRequestHead.read) {
            case .incomplete where bytes.readableBytes <= maxHeadBytes:
                hold(bytes, context: context)
                bytes.moveReaderIndex(to: bytes.writerIndex)
            case .incomplete, .unframed:
                mode = .passing
                pass(bytes, context: context)
                bytes.moveReaderIndex(to: bytes.writerIndex)
            case .framed(let length, let bodyLength, let hit):
                if let hit, length <= maxHitHeadBytes, bodyLength <= maxHitBodyBytes {
                    if bytes.readableBytes - length < bodyLength {
                        // A body still coming is waited for, held with its head (within the head's
                        // and GraphQL's limits): a pipelined POST cut by a read's end, or a client
                        // writing the body apart, would otherwise go on and hold back every hit
                        // after it. Not where no hit can be answered (a request passed on still
                        // unanswered, the cache off, a drain): the head goes on at once.
                        if passedOn == 0, cache.isEnabled, drain?.isDraining != true {
                            scheduleIdleCheck(at: idle.heldBodyRead(), context: context)
                            mode = .awaitingBody(total: length + bodyLength)
                            hold(bytes, context: context)
                            bytes.moveReaderIndex(to: bytes.writerIndex)
                            continue
                        }
                    } else if let body = bytes.getSlice(at: bytes.readerIndex + length, length: bodyLength),
                        answer(hit, body: body, context: context)
                    {
                        idle.hitAnswered()
                        bytes.moveReaderIndex(forwardBy: length + bodyLength)
                        answered = true
                        continue
                    }
                }
                passedOn += 1
                let body = min(bytes.readableBytes - length, bodyLength)
                if body < bodyLength { mode = .body(remaining: bodyLength - body) }
                pass(bytes.readSlice(length: length + body)!, context: context)
            }
        }
        if answered { context.flush() }
    }

    /// An answer to a request passed on has ended (its last part written).
    func answerEnded() {
        passedOn = max(0, passedOn - 1)
        guard let context else { return }
        scheduleIdleCheck(at: idle.answerEnded(), context: context)
    }

    /// A part of a request passed on was read by Hummingbird's side.
    func partRead(isHead: Bool, isEnd: Bool) {
        let due = idle.partRead(isHead: isHead, isEnd: isEnd)
        if let context { scheduleIdleCheck(at: due, context: context) }
    }

    private func scheduleIdleCheck(at deadline: NIODeadline?, context: ChannelHandlerContext) {
        // The earliest check asked for is kept (a check too early finds nothing due and waits).
        guard let deadline, context.channel.isActive else { return }
        if idleTimer != nil, let due = idleTimerDue, due <= deadline { return }
        stopIdleTimer()
        idleTimerDue = deadline
        idleTimer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(deadline: deadline) {
            self.idleTimer = nil
            switch self.idle.check() {
            case .close: context.close(promise: nil)
            case .bodyTimedOut: self.bodyTimedOut(context: context)
            case .wait(let until): self.scheduleIdleCheck(at: until, context: context)
            case .leave: break
            }
        }
    }

    /// A body past `RNM_HTTP_BODY_TIMEOUT_MS`: a `408` when the body is held here and nothing
    /// passed on is being answered (as Node answers past its `requestTimeout`), then the close;
    /// else only the close (Hummingbird's side is answering on this connection).
    private func bodyTimedOut(context: ChannelHandlerContext) {
        bodyTimeouts?.increment()
        guard passedOn == 0, case .awaitingBody = mode else { return context.close(promise: nil) }
        held = nil
        // The rest of the body, still coming while the answer is written, is not a request.
        mode = .discarding
        let answer =
            "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\nDate: \(HTTPDate.now())\r\n\r\n"
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: answer))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    private func stopIdleTimer() {
        idleTimer?.cancel()
        idleTimer = nil
    }

    /// Keeps the start of a request until the rest comes: in a buffer of its own size, not as a
    /// slice of the read's (a head up to `maxHeadBytes`, or a POST's head and body up to
    /// `RNM_HTTP_MAX_HEADER_BYTES` and `RNM_GRAPHQL_MAX_QUERY_BYTES`, kept per connection until
    /// it ends or idles out).
    private func hold(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        guard bytes.capacity > 2 * bytes.readableBytes + 1024 else { return held = bytes }
        var copy = context.channel.allocator.buffer(capacity: bytes.readableBytes)
        copy.writeImmutableBuffer(bytes)
        held = copy
    }

    /// Passes bytes on to NIO's decoder.
    private func pass(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        passedSinceReadComplete = true
        context.fireChannelRead(wrapInboundOut(bytes))
    }

    /// The end of a read goes on only when something of it went on: a read answered here whole
    /// has nothing for the handlers past this one, and its end would go through fourteen of them
    /// for nothing (~3% of a hit's CPU, issue 40). The rule kept: every read passed on is
    /// followed by an end (``pass(_:context:)`` sets the flag), which is all the handlers past
    /// this one use it for (`NIOAsyncChannelHandler` hands over what it buffered; asking for the
    /// next read does not wait for it).
    func channelReadComplete(context: ChannelHandlerContext) {
        guard passedSinceReadComplete else { return }
        passedSinceReadComplete = false
        context.fireChannelReadComplete()
    }

    private func passHeld(context: ChannelHandlerContext) {
        guard let bytes = held else { return }
        held = nil
        mode = .passing
        pass(bytes, context: context)
    }
}
