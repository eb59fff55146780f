import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Settings of an ``RPCServer``.
public struct RPCServerConfiguration: Sendable {
    /// Where to listen.
    public var socketPath: String
    /// The largest frame payload accepted (`RNM_MAX_FRAME_BYTES`).
    public var maxFrameBytes: Int
    /// The name put in `error.data.service`: `gateway`, `characters` or `universities`.
    public var service: String
    /// Requests one connection may have in flight; beyond it, -32005.
    public var maxInFlightPerConnection: Int
    /// How long a started frame may stay incomplete before the connection is closed
    /// (`RNM_FRAME_TIMEOUT_MS`).
    public var frameTimeout: Duration

    public init(socketPath: String, maxFrameBytes: Int = 1_048_576, frameTimeout: Duration = .seconds(10),
                service: String, maxInFlightPerConnection: Int = 4096) {
        self.socketPath = socketPath
        self.maxFrameBytes = maxFrameBytes
        self.frameTimeout = frameTimeout
        self.service = service
        self.maxInFlightPerConnection = maxInFlightPerConnection
    }
}

/// A JSON-RPC server on a Unix domain socket, as a ServiceLifecycle `Service`.
///
/// One task per connection; the requests of a connection are served concurrently and each
/// reply is written as soon as it is ready. On graceful shutdown it stops accepting, stops
/// reading new requests, finishes the requests in flight, then removes its socket file.
public final class RPCServer: Service {
    /// How many -32005 replies may wait to be written before the connection stops being read.
    static let overloadReplyAllowance = 64

    private let configuration: RPCServerConfiguration
    private let handler: any RPCHandler
    private let logger: Logger
    private let group: any EventLoopGroup
    private let onListening: (@Sendable () async -> Void)?

    /// - Parameters:
    ///   - onListening: called once the socket is bound and ready (tests wait on it).
    public init(configuration: RPCServerConfiguration, handler: any RPCHandler, logger: Logger,
                eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                onListening: (@Sendable () async -> Void)? = nil) {
        self.configuration = configuration
        self.handler = handler
        self.logger = logger
        self.group = eventLoopGroup
        self.onListening = onListening
    }

    public func run() async throws {
        let path = configuration.socketPath
        try SocketFile.createDirectory(for: path)
        try await SocketFile.reclaim(path, group: group)
        let maxFrameBytes = configuration.maxFrameBytes
        let frameTimeout = TimeAmount(configuration.frameTimeout)
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 4096)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: false) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(FrameDecoder(maxFrameBytes: maxFrameBytes, frameTimeout: frameTimeout)))
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let identity: SocketFile.Identity
        do {
            identity = try SocketFile.secure(path)
        } catch {
            try? await server.channel.close()
            throw error
        }
        defer { SocketFile.remove(path, ifStill: identity) }
        logger.info("listening", metadata: ["socket": "\(path)"])
        await onListening?()

        try await withGracefulShutdownHandler {
            try await server.executeThenClose { connections in
                await withDiscardingTaskGroup { group in
                    do {
                        for try await connection in connections {
                            group.addTask { await self.serve(connection) }
                        }
                    } catch {
                        self.logger.debug("accept loop ended", metadata: ["error": "\(error)"])
                    }
                }
            }
        } onGracefulShutdown: {
            server.channel.close(promise: nil)
        }
        logger.info("stopped", metadata: ["socket": "\(path)"])
    }

    // MARK: - Connections

    private func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        let inFlight = InFlightCounter()
        let draining = Atomic<Bool>(false)
        do {
            try await connection.executeThenClose { inbound, outbound in
                await withDiscardingTaskGroup { requests in
                    await withGracefulShutdownHandler {
                        do {
                            for try await payload in inbound {
                                if draining.load(ordering: .acquiring) {
                                    self.refuse(payload, requests: &requests, outbound: outbound)
                                    continue
                                }
                                self.accept(payload, inFlight: inFlight, requests: &requests, outbound: outbound)
                                // Past the limit requests get -32005; if even those replies are not
                                // being read, stop reading until they drain.
                                await inFlight.waitUntilBelow(self.configuration.maxInFlightPerConnection + Self.overloadReplyAllowance)
                            }
                        } catch where error is FrameDecoderError || error is FrameTimeoutError {
                            self.logger.notice("closing connection after a bad frame", metadata: ["error": "\(error)"])
                            try? await outbound.write(Frames.errorResponse(rawID: nil, error: RPCError(mapping: error, service: self.configuration.service)))
                        } catch {
                            self.logger.debug("connection read ended", metadata: ["error": "\(error)"])
                        }
                    } onGracefulShutdown: {
                        // Requests in flight finish and are answered; new ones are refused with
                        // -32003 (the connection keeps being read: a peer writing to a socket
                        // whose reading side is shut gets EPIPE and would lose its replies).
                        // The connection closes once nothing is in flight.
                        draining.store(true, ordering: .releasing)
                        let channel = connection.channel
                        inFlight.whenDrained { channel.close(promise: nil) }
                    }
                }
            }
        } catch {
            logger.debug("connection closed with an error", metadata: ["error": "\(error)"])
        }
    }

    /// Answers a request that arrived after shutdown began with -32003.
    private func refuse(_ payload: ByteBuffer, requests: inout DiscardingTaskGroup,
                        outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        guard let envelope = try? Envelope(parsing: payload), envelope.kind == .request else { return }
        let error = RPCError(.serviceUnavailable, "\(configuration.service) is shutting down; retry shortly", service: configuration.service)
        let frame = Frames.errorResponse(rawID: envelope.rawID, error: error)
        requests.addTask { try? await outbound.write(frame) }
    }

    /// Parses one payload and starts its request, or answers its error at once.
    private func accept(_ payload: ByteBuffer, inFlight: InFlightCounter,
                        requests: inout DiscardingTaskGroup, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        let service = configuration.service
        let envelope: Envelope
        do {
            envelope = try Envelope(parsing: payload)
        } catch {
            let rawID: ByteBuffer? = if case .invalid(_, let id) = error { id } else { nil }
            let frame = Frames.errorResponse(rawID: rawID, error: RPCError(mapping: error, service: service))
            requests.addTask { try? await outbound.write(frame) }
            return
        }
        guard envelope.kind != .response else {
            let error = RPCError(.invalidRequest, "invalid request: expected a request, got a response", service: service)
            requests.addTask { try? await outbound.write(Frames.errorResponse(rawID: envelope.rawID, error: error)) }
            return
        }
        guard inFlight.increment() <= configuration.maxInFlightPerConnection else {
            let error = RPCError(.overloaded, "overloaded: more than \(configuration.maxInFlightPerConnection) requests in flight on this connection; retry later", service: service)
            requests.addTask {
                defer { inFlight.decrement() }
                if envelope.kind == .request {
                    try? await outbound.write(Frames.errorResponse(rawID: envelope.rawID, error: error))
                }
            }
            return
        }
        requests.addTask {
            defer { inFlight.decrement() }
            let reply = await self.respond(to: envelope, outbound: outbound)
            if let reply { try? await outbound.write(reply) }
        }
    }

    /// Runs the handler; returns the reply frame (nil for a notification).
    private func respond(to envelope: Envelope, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) async -> ByteBuffer? {
        var logger = self.logger
        logger[metadataKey: "request-id"] = "\(envelope.idDescription)"
        logger[metadataKey: "method"] = "\(envelope.method ?? "")"
        let rawID = envelope.rawID
        let context = RPCRequestContext(logger: logger, rawID: rawID) { frame in
            try? await outbound.write(frame)
        }
        let started = ContinuousClock.now
        do {
            let reply = try await handler.handle(RPCRequest(envelope: envelope), context: context)
            logger.debug("request served", metadata: ["latency": "\(ContinuousClock.now - started)"])
            guard let rawID else { return nil }
            switch reply {
            case .result(let result): return Frames.response(rawID: rawID, result: result)
            case .frame(let frame): return frame
            case .none: return nil
            }
        } catch {
            let rpcError = RPCError(mapping: error, service: configuration.service)
            if rpcError.code == .internalError {
                logger.error("request failed with an internal error", metadata: ["error": "\(error)"])
            } else {
                logger.debug("request failed", metadata: ["code": "\(rpcError.code)", "error": "\(rpcError.message)"])
            }
            return rawID.map { Frames.errorResponse(rawID: $0, error: rpcError) }
        }
    }
}

/// Counts a connection's requests (and pending replies) in flight, and lets its reader wait
/// for them to drain: a client that stops reading its replies stops being read.
final class InFlightCounter: Sendable {
    private struct State {
        var count = 0
        var waiter: (threshold: Int, continuation: CheckedContinuation<Void, Never>)?
        var onDrained: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    /// Adds one; returns the new count.
    func increment() -> Int {
        state.withLock { state in
            state.count += 1
            return state.count
        }
    }

    func decrement() {
        let (waiter, drained) = state.withLock { state -> (CheckedContinuation<Void, Never>?, (@Sendable () -> Void)?) in
            state.count -= 1
            var drained: (@Sendable () -> Void)?
            if state.count == 0 {
                drained = state.onDrained
                state.onDrained = nil
            }
            guard let waiter = state.waiter, state.count < waiter.threshold else { return (nil, drained) }
            state.waiter = nil
            return (waiter.continuation, drained)
        }
        waiter?.resume()
        drained?()
    }

    /// Runs `action` once nothing is in flight (at once if nothing is).
    func whenDrained(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.count == 0 { return true }
            state.onDrained = action
            return false
        }
        if now { action() }
    }

    /// Returns once fewer than `threshold` are in flight.
    func waitUntilBelow(_ threshold: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.count < threshold { return true }
                state.waiter = (threshold, continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
