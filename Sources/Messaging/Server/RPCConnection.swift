import Logging
import NIOCore
import Synchronization
import Telemetry

/// One client connection of an ``RPCServer``: reads frames, starts each request, and writes
/// every reply, error and progress notification within the connection's limits.
///
/// Frames go to the channel through its ``FrameWriter`` (in the order they are written, at the
/// end of the event loop's turn; each counted against the budget until the socket has taken
/// it and the rest of its turn's frames), so that a reply can be written from wherever it is
/// ready: the reader for a reply-cache hit, the event loop where a forwarded reply arrives, or
/// a request's task.
///
/// - No frame over the frame limit is ever written: a reply too big becomes a -32006 error
///   for that request alone.
/// - Every reply and error counts against the connection's ``ConnectionBudget``: a client
///   that sends without reading stops being read, and (where the server's clients are not
///   trusted to read, the Gateway) replies that would pile up past the budget are replaced
///   by a short -32005 error.
final class RPCConnection: Sendable {
    let configuration: RPCServerConfiguration
    let handler: any RPCHandler
    let logger: Logger
    let metrics: RPCServerMetrics
    let budget: ConnectionBudget
    /// Everything written to the connection goes through it.
    let writer: FrameWriter
    /// How much of the connection each turn of its event loop reads (nil: NIO's own turns).
    let turns: ReadTurns?
    /// The requests being served, each in its own task (the reader must be stoppable alone).
    let tasks = RequestTasks()
    /// Whether the client asked for its replies to be held rather than dropped
    /// (``RPCRequestContext/holdReplies``).
    let holdsReplies = Atomic(false)
    /// Unique in the process (``RPCRequestContext/connection``).
    let id = RPCConnection.nextID.wrappingAdd(1, ordering: .relaxed).newValue
    private static let nextID = Atomic<UInt64>(0)

    // A class, not a struct: every request's closures capture the connection, and one
    // reference is one retain where a struct copy retained each of its fields.
    init(
        configuration: RPCServerConfiguration, handler: any RPCHandler, logger: Logger, metrics: RPCServerMetrics,
        budget: ConnectionBudget, writer: FrameWriter, turns: ReadTurns? = nil
    ) {
        self.turns = turns
        self.metrics = metrics
        self.configuration = configuration
        self.handler = handler
        self.logger = logger
        self.budget = budget
        self.writer = writer
    }

    var service: String { configuration.service }

    /// Answers a frame that could not be read (over the limit, or cut short by the frame
    /// timeout); reading stops after it.
    func refuse(badFrame error: any Error) {
        logger.notice("closing connection after a bad frame", metadata: ["error": "\(error)"])
        metrics.refused(error is FrameTimeoutError ? .frameTimeout : .frameBytes)
        budget.beginWrite()
        writeCounted(Frames.errorResponse(rawID: nil, error: RPCError(mapping: error, service: service)))
    }

    /// Parses one payload and starts its request, or answers its error; false, doing nothing,
    /// for a notification while every request slot is taken (it has no reply to carry a
    /// -32005: the reader holds it, and reading, until a slot frees).
    func accept(_ received: ByteBuffer) -> Bool {
        // A copy of its own: the decoder's payloads are slices of its read buffer, and a
        // request held while it is served would keep that whole buffer alive.
        let payload = ByteBuffer(bytes: received.readableBytesView)
        let envelope: Envelope
        do {
            envelope = try Envelope(parsing: payload)
        } catch {
            let rawID: ByteBuffer? = if case .invalid(_, let id) = error { id } else { nil }
            let rpcError = RPCError(mapping: error, service: service)
            metrics.malformed(rpcError.code)
            budget.beginWrite()
            // Counted before the next frame is read: a client sending garbage without reading
            // is held back by its own unread errors.
            writeCounted(Frames.errorResponse(rawID: rawID, error: rpcError))
            return true
        }
        if let range = envelope.cancelledRequestIDRange {
            // The client gave up on a request: its task is cancelled, and the handler told (a
            // forwarded one may have no task here). No reply, no slot.
            let requestID = envelope.slice(range)
            tasks.cancel(id: requestID)
            handler.cancel(requestID: requestID, connection: id)
            return true
        }
        guard envelope.kind != .response else {
            let error = RPCError(
                .invalidRequest, "invalid request: expected a request, got a response", service: service)
            metrics.malformed(.invalidRequest)
            budget.beginWrite()
            writeCounted(Frames.errorResponse(rawID: envelope.rawID, error: error))
            return true
        }
        if envelope.kind == .notification, !budget.hasRoom(needsSlot: true) { return false }
        let bytes = payload.readableBytes
        switch budget.admit(bytes: bytes) {
        case .admitted:
            let request = RPCRequest(envelope: envelope)
            let method = metrics.method(envelope.method)
            let arrived = metrics.now()
            if let result = handler.cachedResult(for: request) {
                // A reply-cache hit: answered here, with no task and no trip to the database.
                metrics.answeredFromReplyCache(method, started: arrived)
                if let rawID = envelope.rawID {
                    writeReply(Frames.response(rawID: rawID, result: result), rawID: rawID, method: envelope.method)
                }
                budget.finishRequest(bytes: bytes)
                return true
            }
            // A handler that can answer without a task of its own (the Gateway) starts here.
            let context = makeContext(for: envelope)
            let measure = Measure(method: method, started: metrics.started(at: arrived))
            let started = handler.start(request, context: context) { [self] outcome in
                finish(outcome, envelope: envelope, context: context, bytes: bytes, measure: measure)
            }
            if !started {
                tasks.start(id: envelope.rawID) { [self] in
                    await RequestTrace.with(context.traceID) {
                        await RequestClient.with(context.client) {
                            await serve(envelope, context: context, bytes: bytes, measure: measure)
                        }
                    }
                }
            }
        case .overloaded:
            metrics.refused(.inFlightPerConnection)
            metrics.method(envelope.method).failed(.overloaded)
            let error = RPCError(
                .overloaded,
                "overloaded: more than \(budget.maxRequests) requests in flight on this connection; retry later",
                service: service)
            writeCounted(envelope.rawID.map { Frames.errorResponse(rawID: $0, error: error) })
        case .draining:
            metrics.refused(.draining)
            metrics.method(envelope.method).failed(.serviceUnavailable)
            let error = RPCError(.serviceUnavailable, "\(service) is shutting down; retry shortly", service: service)
            writeCounted(envelope.rawID.map { Frames.errorResponse(rawID: $0, error: error) })
        }
        return true
    }

    /// Serves one admitted request in its task and writes its reply.
    private func serve(_ envelope: Envelope, context: RPCRequestContext, bytes: Int, measure: Measure) async {
        var outcome: Result<RPCReply, any Error>
        do {
            outcome = .success(try await handler.handle(RPCRequest(envelope: envelope), context: context))
        } catch {
            outcome = .failure(error)
        }
        // Given up on by the client (`rpc.cancel`): whatever the work ended with, nobody reads it.
        if Task.isCancelled { outcome = .failure(CancellationError()) }
        finish(outcome, envelope: envelope, context: context, bytes: bytes, measure: measure)
    }

    /// A request's instruments and when it was admitted.
    struct Measure {
        var method: RPCServerMetrics.Method
        var started: NIODeadline
    }

    /// Writes the reply for a handler's outcome, then counts the request answered.
    private func finish(
        _ outcome: Result<RPCReply, any Error>, envelope: Envelope, context: RPCRequestContext, bytes: Int,
        measure: Measure
    ) {
        let (reply, error) = frame(for: outcome, envelope: envelope, context: context)
        let logger = context.logger
        metrics.finished(measure.method, started: measure.started, error: error)
        // One line per request at debug: with its trace id, it follows a request through every hop.
        if logger.logLevel <= .debug {
            logger.debug(
                "answered", metadata: context.traceMetadata.merging(["outcome": "\(error?.name ?? "ok")"]) { $1 })
        }
        if let reply {
            writeReply(reply, rawID: envelope.rawID, method: envelope.method)
        }
        budget.finishRequest(bytes: bytes)
    }

    /// What a handler may use while it serves `envelope`.
    private func makeContext(for envelope: Envelope) -> RPCRequestContext {
        var logger = self.logger
        // Metadata only when it will be printed: building it costs two strings per request.
        if logger.logLevel <= .debug {
            logger[metadataKey: "request-id"] = "\(RPCError.excerpt(envelope.idDescription))"
            logger[metadataKey: "method"] = "\(RPCError.excerpt(envelope.method ?? ""))"
        }
        return RPCRequestContext(
            logger: logger, rawID: envelope.rawID,
            clientBacklog: { [self] in
                let limit: RPCServerMetrics.Limit? =
                    switch replyPolicy {
                    case .always: nil
                    case .withinBudgets: budget.isBacklogged ? .unreadBytes : nil
                    case .held: budget.isHeldBacklogged ? .processUnreadBytes : nil
                    }
                guard let limit else { return nil }
                metrics.refused(limit)
                return Self.droppedReply(budget: budget, service: service)
            },
            holdReplies: { [self] in
                holdsReplies.store($0, ordering: .relaxed)
                // A relay of many clients that reads every reply (the HTTP front) is read in
                // NIO's usual turns, not the small fair turn of a client that may not read.
                let full = $0
                if let turns { writer.onLoop { channel in turns.readInFullTurns(full, channel: channel) } }
            }, connection: id,
            maxInFlight: budget.maxRequests, inFlightOnConnection: budget.requestsInFlight,
            // Its bytes only: a String is made when a line is logged (measured: making it for
            // every request, and putting it in the logger's metadata, cost the Gateway 9%).
            trace: envelope.traceRange.map(envelope.slice), client: envelope.client,
            relaysClients: holdsReplies.load(ordering: .relaxed)
        ) { [self] frame in
            writeNotification(frame)
        }
    }

    /// The reply frame for a handler's outcome (nil for a notification, or no reply), and its
    /// error's code if it is one; errors mapped to their wire codes.
    private func frame(
        for outcome: Result<RPCReply, any Error>, envelope: Envelope, context: RPCRequestContext
    ) -> (ByteBuffer?, RPCError.Code?) {
        let logger = context.logger
        let rawID = envelope.rawID
        switch outcome {
        case .success(let reply):
            switch reply {
            case .result(let result): return (rawID.map { Frames.response(rawID: $0, result: result) }, nil)
            case .frame(let frame, let code): return (rawID == nil ? nil : frame, code)
            case .none: return (nil, nil)
            }
        case .failure(let error):
            let rpcError = RPCError(mapping: error, service: service)
            if rpcError.code == .internalError {
                logger.error(
                    "request failed with an internal error",
                    metadata: context.traceMetadata.merging(["error": "\(error)"]) { $1 })
            } else {
                logger.debug(
                    "request failed",
                    metadata: context.traceMetadata.merging(
                        ["code": "\(rpcError.code)", "error": "\(rpcError.message)"]) { $1 })
            }
            return (rawID.map { Frames.errorResponse(rawID: $0, error: rpcError) }, rpcError.code)
        }
    }

}
