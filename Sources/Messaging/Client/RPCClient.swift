import Logging
#if canImport(Glibc)
    import Glibc
#endif
import NIOCore
import NIOPosix
import Synchronization

/// A client connection to one rnm socket, multiplexing any number of requests.
///
/// Requests get ids from a counter and may be answered in any order; each reply goes to its
/// own caller. Each request has its own deadline (restarted by progress notifications).
/// When the connection drops, every pending request fails at once with -32003.
/// Replies are matched on the event loop, without hopping through other tasks.
public final class RPCClient: Sendable {
    /// A progress callback; it receives the whole notification envelope.
    public typealias ProgressHandler = @Sendable (Envelope) -> Void

    /// The service on the other end, named in errors.
    public let service: String
    /// The socket path.
    public let socketPath: String
    let channel: any Channel
    /// Requests are written through it: several sent in one turn of the event loop go out in
    /// one system call.
    let writer: FrameWriter
    let state = Mutex(State())

    /// Asked as a reply arrives: an error to fail the request with instead of handing the
    /// reply over (its bytes are never kept), or nil.
    public typealias ReplyFilter = @Sendable () -> RPCError?

    struct Pending {
        /// Called once with the reply or the failure (a continuation's resume, or a callback).
        var complete: @Sendable (Result<Envelope, any Error>) -> Void
        var onProgress: ProgressHandler?
        var dropReply: ReplyFilter?
        var timeout: TimeAmount?
        var deadline: NIODeadline?
        /// Whose request this is, when it is sent on behalf of another connection's (the
        /// Gateway's forwards): what ``cancel(origin:)`` finds it by.
        var origin: Origin?
    }

    /// A request sent on behalf of another: that client's connection and its id for it.
    public struct Origin: Hashable, Sendable {
        public var connection: UInt64
        public var requestID: ByteBuffer

        public init(connection: UInt64, requestID: ByteBuffer) {
            self.connection = connection
            self.requestID = requestID
        }
    }

    struct State {
        var nextID: Int64 = 1
        var pending: [Int64: Pending] = [:]
        /// The requests sent on behalf of another connection's, by that request (kept with
        /// `pending` under the same lock: a cancel is one look-up, never a scan).
        var byOrigin: [Origin: Int64] = [:]
        /// Ids handed out by ``RPCClient/send(timeout:onProgress:dropReply:_:)`` but not yet
        /// registered as pending, and whether their task was cancelled meanwhile (such a request
        /// fails as soon as it would be registered). ``RPCClient/start`` has no task to cancel.
        var unregistered: [Int64: Bool] = [:]
        var closedReason: String?
        /// When the next deadline sweep is scheduled: never later than any pending deadline.
        var sweepAt: NIODeadline?
        var sweep: Scheduled<Void>?
    }

    /// The largest frame payload this client sends or accepts.
    public let maxFrameBytes: Int

    private init(channel: any Channel, service: String, socketPath: String, maxFrameBytes: Int) {
        self.channel = channel
        self.writer = FrameWriter(channel: channel)
        self.service = service
        self.socketPath = socketPath
        self.maxFrameBytes = maxFrameBytes
    }

    /// Connects to the socket at `path`.
    /// - Throws: ``RPCError`` -32003 naming the service and the path when nothing answers there.
    public static func connect(
        socketPath: String, service: String, maxFrameBytes: Int = WireLimits.maxFrameBytes,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> RPCClient {
        let box = ClientBox()
        do {
            let channel = try await ClientBootstrap(group: eventLoopGroup)
                .connectTimeout(.seconds(2))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandlers([
                            ByteToMessageHandler(FrameDecoder(maxFrameBytes: maxFrameBytes)),
                            ClientInboundHandler(box: box),
                        ])
                    }
                }
                .connect(unixDomainSocketPath: socketPath).get()
            let client = RPCClient(
                channel: channel, service: service, socketPath: socketPath, maxFrameBytes: maxFrameBytes)
            box.client.withLock { $0 = client }
            // The channel may have closed before the handler could see the client.
            if !channel.isActive { client.failAll(reason: "connection to \(service) at \(socketPath) closed") }
            return client
        } catch {
            throw RPCError.cannotConnect(to: service, at: socketPath, reason: Self.describe(error))
        }
    }

    /// Whether the connection is still open.
    public var isActive: Bool { channel.isActive && state.withLock { $0.closedReason == nil } }

    /// Completes when the connection has closed.
    public var closeFuture: EventLoopFuture<Void> { channel.closeFuture }

    /// Closes the connection; pending requests fail with -32003.
    public func close() async {
        try? await channel.close()
        failAll(reason: "connection to \(service) closed by this client")
    }

    /// Sends a frame that `makeFrame` builds around the id this client chose, and waits for
    /// the reply with that id.
    ///
    /// - Parameters:
    ///   - timeout: the deadline, restarted by each progress notification; nil for none.
    ///   - onProgress: receives this request's progress notifications.
    /// - Returns: the reply's envelope (a result or an error: both are replies).
    /// - Throws: ``RPCError`` -32003 if the connection is or goes down, -32004 on the deadline,
    ///   `CancellationError` if the calling task is cancelled, ``FrameTooLargeError`` (nothing
    ///   sent) when the frame would be over the frame limit.
    public func send(
        timeout: Duration?, onProgress: ProgressHandler? = nil, dropReply: ReplyFilter? = nil,
        _ makeFrame: (Int64) -> ByteBuffer
    ) async throws -> Envelope {
        let (id, frame) = try prepare(makeFrame)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                register(
                    id, frame: frame, timeout: timeout, onProgress: onProgress, dropReply: dropReply, fromTask: true
                ) {
                    continuation.resume(with: $0)
                }
            }
        } onCancel: {
            // Cancelled before the request was registered: it must not wait for its deadline.
            let registered = state.withLock { state -> Bool in
                guard state.unregistered[id] != nil else { return true }
                state.unregistered[id] = true
                return false
            }
            if registered, fail(id, with: CancellationError()) { cancelOnServer(id) }
        }
    }

    /// ``send(timeout:onProgress:dropReply:_:)`` without a task: returns once the frame is on
    /// its way, and calls `completion` exactly once, on the connection's event loop (or at once
    /// when the connection is already closed), with the reply or the failure.
    /// - Throws: ``FrameTooLargeError`` (nothing sent, `completion` not called).
    public func start(
        timeout: Duration?, onProgress: ProgressHandler? = nil, dropReply: ReplyFilter? = nil, origin: Origin? = nil,
        _ makeFrame: (Int64) -> ByteBuffer,
        completion: @escaping @Sendable (Result<Envelope, any Error>) -> Void
    ) throws {
        // No task to be cancelled between the id and the registration: the id is taken without
        // the bookkeeping ``send(timeout:onProgress:dropReply:_:)`` needs for that (the
        // Gateway's every forward comes here).
        let id = state.withLock { state -> Int64 in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let frame = makeFrame(id)
        try FrameTooLargeError.check(frame, maxFrameBytes: maxFrameBytes, what: "the request to \(service)")
        register(
            id, frame: frame, timeout: timeout, onProgress: onProgress, dropReply: dropReply, origin: origin,
            fromTask: false, complete: completion)
    }

    /// Gives up on the request sent on behalf of `origin` (its client sent `rpc.cancel`): it
    /// fails with `CancellationError`, and the server is told (`rpc.cancel`).
    public func cancel(origin: Origin) {
        let found = state.withLock { state -> (Int64, Pending)? in
            guard let id = state.byOrigin[origin] else { return nil }
            return state.removePending(id).map { (id, $0) }
        }
        guard let (id, pending) = found else { return }
        cancelOnServer(id)
        pending.complete(.failure(CancellationError()))
    }

    /// Picks the request's id and builds its frame.
    /// - Throws: ``FrameTooLargeError``: the peer would have to close the connection, failing
    ///   every request on it.
    private func prepare(_ makeFrame: (Int64) -> ByteBuffer) throws -> (Int64, ByteBuffer) {
        let id = state.withLock { state -> Int64 in
            defer { state.nextID += 1 }
            state.unregistered[state.nextID] = false
            return state.nextID
        }
        let frame = makeFrame(id)
        do {
            try FrameTooLargeError.check(frame, maxFrameBytes: maxFrameBytes, what: "the request to \(service)")
        } catch {
            state.withLock { _ = $0.unregistered.removeValue(forKey: id) }
            throw error
        }
        return (id, frame)
    }

    /// Registers request `id` (unless the connection is closed or, `fromTask`, the request was
    /// cancelled before it got here: then `complete` fails at once), arms its deadline and
    /// sends it.
    private func register(
        _ id: Int64, frame: ByteBuffer, timeout: Duration?, onProgress: ProgressHandler?, dropReply: ReplyFilter?,
        origin: Origin? = nil, fromTask: Bool, complete: @escaping @Sendable (Result<Envelope, any Error>) -> Void
    ) {
        let amount = timeout.map(TimeAmount.init)
        let deadline = amount.map { NIODeadline.now() + $0 }
        let (failure, sweepAt) = state.withLock { state -> ((any Error)?, NIODeadline?) in
            let cancelled = fromTask ? state.unregistered.removeValue(forKey: id) ?? false : false
            if let reason = state.closedReason { return (RPCError(.serviceUnavailable, reason, service: service), nil) }
            if cancelled { return (CancellationError(), nil) }
            state.pending[id] = Pending(
                complete: complete, onProgress: onProgress, dropReply: dropReply, timeout: amount, deadline: deadline,
                origin: origin)
            if let origin { state.byOrigin[origin] = id }
            return (nil, Self.needsSweep(at: deadline, &state))
        }
        if let failure {
            complete(.failure(failure))
            return
        }
        if let sweepAt { scheduleSweep(at: sweepAt) }
        writer.write(frame, then: .request(self, id: id))
    }

    /// Request `id` could not be written: it fails (the writer's ``FrameWriter/Completion``).
    func writeFailed(_ id: Int64, error: any Error) {
        fail(
            id,
            with: RPCError(.serviceUnavailable, "cannot send to \(service): \(Self.describe(error))", service: service))
    }

    /// Sends a frame that expects no reply (a notification).
    public func sendWithoutReply(_ frame: ByteBuffer) async throws {
        try FrameTooLargeError.check(frame, maxFrameBytes: maxFrameBytes, what: "the notification to \(service)")
        guard isActive else {
            throw RPCError(.serviceUnavailable, "connection to \(service) at \(socketPath) is closed", service: service)
        }
        // Through the writer, behind the requests it holds for this turn.
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            writer.write(frame) { continuation.resume(with: $0) }
        }
    }

}
