import Logging
import NIOCore
import NIOPosix
import Telemetry

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
    /// Bytes one connection may hold: requests being served and replies waiting to be
    /// written (`RNM_CONNECTION_BUFFER_BYTES`). Past it the connection is not read.
    public var connectionBufferBytes: Int
    /// Whether a reply that finds the connection's budget full of unread replies is replaced
    /// by a -32005 error (the Gateway, whose clients are anyone) or written anyway (a
    /// service, whose one client is the Gateway, which always reads).
    public var dropsUnreadReplies: Bool
    /// Client connections open at once (`RNM_MAX_CONNECTIONS`); past it a new one is sent
    /// -32005 and closed.
    public var maxConnections: Int
    /// Bytes of replies waiting unread over all connections (`RNM_MAX_UNREAD_BYTES`); counts
    /// only where replies are dropped (``dropsUnreadReplies``).
    public var maxUnreadBytes: Int
    /// How long a client may take none of its replies before it is disconnected
    /// (`RNM_UNREAD_TIMEOUT_MS`); it is not read meanwhile.
    public var sendTimeout: Duration
    /// Where its metrics are recorded.
    public var instruments: Instruments

    public init(
        socketPath: String, maxFrameBytes: Int = WireLimits.maxFrameBytes,
        frameTimeout: Duration = .milliseconds(WireLimits.frameTimeoutMilliseconds),
        service: String, maxInFlightPerConnection: Int = WireLimits.maxInFlightPerConnection,
        connectionBufferBytes: Int = WireLimits.connectionBufferBytes,
        dropsUnreadReplies: Bool = false, maxConnections: Int = WireLimits.maxConnections,
        maxUnreadBytes: Int = WireLimits.maxUnreadBytes,
        sendTimeout: Duration = .milliseconds(WireLimits.unreadTimeoutMilliseconds),
        instruments: Instruments = .disabled
    ) {
        self.sendTimeout = sendTimeout
        self.instruments = instruments
        self.dropsUnreadReplies = dropsUnreadReplies
        self.maxConnections = maxConnections
        self.maxUnreadBytes = maxUnreadBytes
        self.socketPath = socketPath
        self.maxFrameBytes = maxFrameBytes
        self.frameTimeout = frameTimeout
        self.service = service
        self.maxInFlightPerConnection = maxInFlightPerConnection
        self.connectionBufferBytes = connectionBufferBytes
    }
}

/// A JSON-RPC server on a Unix domain socket. ``run()`` serves until ``shutDownGracefully()``
/// (the ServiceRuntime target runs it as a ServiceLifecycle service).
///
/// One task per connection; the requests of a connection are served concurrently and each
/// reply is written as soon as it is ready (``RPCConnection``). On graceful shutdown it stops
/// accepting, refuses new requests, finishes the requests in flight, then removes its socket file.
public final class RPCServer: Sendable {
    private let configuration: RPCServerConfiguration
    private let handler: any RPCHandler
    private let logger: Logger
    private let group: any EventLoopGroup
    private let onListening: (@Sendable () async -> Void)?
    private let shutdown = ShutdownSignal()
    private let metrics: RPCServerMetrics

    /// - Parameters:
    ///   - onListening: called once the socket is bound and ready (tests wait on it).
    public init(
        configuration: RPCServerConfiguration, handler: any RPCHandler, logger: Logger,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        onListening: (@Sendable () async -> Void)? = nil
    ) {
        self.configuration = configuration
        self.handler = handler
        self.logger = logger
        self.group = eventLoopGroup
        self.onListening = onListening
        self.metrics = RPCServerMetrics(methods: handler.methodNames, instruments: configuration.instruments)
    }

    /// Stops accepting, refuses new requests, finishes those in flight, then ``run()`` returns.
    public func shutDownGracefully() {
        shutdown.trigger()
    }

    /// Serves until shut down; removes the socket file on the way out.
    public func run() async throws {
        let path = configuration.socketPath
        try SocketFile.createDirectory(for: path)
        try await SocketFile.reclaim(path, group: group)
        let maxFrameBytes = configuration.maxFrameBytes
        let frameTimeout = TimeAmount(configuration.frameTimeout)
        // Bound in a private directory, made 0660, then linked into place: the socket file
        // never exists at a reachable path with wider permissions.
        let staging = try SocketFile.stage(path)
        defer { staging.remove() }
        let (configuration, handler, logger, metrics) = (self.configuration, self.handler, self.logger, self.metrics)
        let process = ProcessBudget(
            maxConnections: configuration.maxConnections, maxUnreadBytes: configuration.maxUnreadBytes)
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 4096)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            // Fair turns (issue 35, finding 7): up to 256 new connections accepted a turn, and
            // each connection read in small turns (``ReadTurns``).
            .serverChannelOption(.maxMessagesPerRead, value: 256)
            .bind(unixDomainSocketPath: staging.socketPath, cleanupExistingSocketFile: false) { channel in
                channel.eventLoop.makeCompletedFuture {
                    // Past the cap, nothing of the connection is served (its reader stopped before
                    // it starts) until serve() has told it why and closed it.
                    let admitted = process.admitConnection()
                    // Small fair turns where clients are anyone (the Gateway); a service's one
                    // client is the Gateway's link, read in NIO's own turns.
                    let turns: ReadTurns? = configuration.dropsUnreadReplies ? ReadTurns() : nil
                    if turns != nil, let options = channel.syncOptions { try ReadTurns.configure(options) }
                    let connection = RPCConnection(
                        configuration: configuration, handler: handler, logger: logger, metrics: metrics,
                        budget: ConnectionBudget(
                            maxRequests: configuration.maxInFlightPerConnection,
                            maxBytes: configuration.connectionBufferBytes, process: process),
                        writer: FrameWriter(channel: channel), turns: turns)
                    let pauses = ReadPauses()
                    let reader = RPCConnectionReader(
                        connection: connection, eventLoop: channel.eventLoop, pauses: pauses,
                        sendTimeout: TimeAmount(configuration.sendTimeout))
                    // A stopped reader withholds every read and drops what arrives.
                    if !admitted { reader.stop() }
                    try channel.pipeline.syncOperations.addHandlers(
                        ByteToMessageHandler(
                            FrameDecoder(
                                maxFrameBytes: maxFrameBytes, frameTimeout: frameTimeout, pauses: pauses,
                                turns: turns)),
                        reader)
                    return AcceptedConnection(
                        channel: channel, connection: connection, readingEnded: reader.readingEnded,
                        reader: NIOLoopBound(reader, eventLoop: channel.eventLoop),
                        admitted: admitted)
                }
            }
        let identity: SocketFile.Identity
        do {
            identity = try SocketFile.publish(staging, at: path)
        } catch {
            try? await server.channel.close()
            throw error
        }
        defer { SocketFile.remove(path, ifStill: identity) }
        logger.info("listening", metadata: ["socket": "\(path)"])
        await onListening?()

        try await shutdown.whileRunning(onShutdown: { server.channel.close(promise: nil) }) {
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
        }
        logger.info("stopped", metadata: ["socket": "\(path)"])
    }

    // MARK: - Connections

    private func serve(_ accepted: AcceptedConnection) async {
        let (channel, served, budget) = (accepted.channel, accepted.connection, accepted.connection.budget)
        guard accepted.admitted else {
            metrics.refused(.connections)
            // Told why, then closed: nothing of it is read.
            let error = RPCError(
                .overloaded,
                """
                overloaded: \(configuration.maxConnections) connections are open (RNM_MAX_CONNECTIONS); \
                retry shortly
                """,
                service: configuration.service)
            try? await channel.writeAndFlush(Frames.errorResponse(rawID: nil, error: error)).get()
            try? await channel.close()
            return
        }
        metrics.connectionOpened()
        defer {
            metrics.connectionClosed()
            budget.process.releaseConnection()
        }
        let reader = accepted.reader
        let stopReading: @Sendable () -> Void = { channel.eventLoop.execute { reader.value.stop() } }
        await withTaskCancellationHandler {
            // On shutdown, requests in flight finish and are answered; new ones are refused
            // with -32003 (the connection keeps being read: a peer writing to a socket whose
            // reading side is shut gets EPIPE and would lose its replies). Reading stops once
            // nothing is owed, and the connection closes.
            await shutdown.whileRunning(onShutdown: { budget.drain(then: stopReading) }) {
                try? await accepted.readingEnded.get()
            }
            // Whatever was read before reading stopped is answered before the close...
            await budget.waitUntilIdle()
            // ...and reaches the socket: a close drops writes still queued in the channel. An
            // empty write completes once every write before it has (through the connection's
            // writer, which holds a turn's frames until the turn ends); a client that does not
            // read gets 2 s, then the close.
            let giveUp = channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
            await withCheckedContinuation { (written: CheckedContinuation<Void, Never>) in
                served.writer.write(ByteBuffer()) { _ in written.resume() }
            }
            giveUp.cancel()
            try? await channel.close()
        } onCancel: {
            // A forced shutdown: stop reading, cancel the requests being served, and stop
            // waiting for a client that does not read.
            stopReading()
            served.tasks.cancelAll()
            channel.close(promise: nil)
        }
    }
}

/// A connection as accepted: its channel, what serves it, and its reader (bound to the
/// channel's event loop).
struct AcceptedConnection: Sendable {
    let channel: any Channel
    let connection: RPCConnection
    let readingEnded: EventLoopFuture<Void>
    /// Touched only on the channel's event loop.
    let reader: NIOLoopBound<RPCConnectionReader>
    /// Within the process's connection cap.
    let admitted: Bool
}
