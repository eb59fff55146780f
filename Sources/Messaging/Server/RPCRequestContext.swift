import Logging
import NIOCore
import Telemetry

/// What a handler may use while it serves one request.
///
/// Everything but the logger lives in one shared object: a context is copied into each
/// closure that answers its request (a forward in the Gateway makes several), and a copy is
/// then one reference counted, not each of its fields.
public struct RPCRequestContext: Sendable {
    /// A logger whose metadata names the request id and method.
    public var logger: Logger
    private let shared: Shared

    private final class Shared: Sendable {
        let clientBacklog: @Sendable () -> RPCError?
        let holdReplies: @Sendable (Bool) -> Void
        let connection: UInt64
        let maxInFlight: Int
        let inFlightOnConnection: Int
        let client: String?
        let relaysClients: Bool
        let rawID: ByteBuffer?
        let trace: ByteBuffer?
        let progressSink: @Sendable (ByteBuffer) -> Void

        init(
            clientBacklog: @escaping @Sendable () -> RPCError?, holdReplies: @escaping @Sendable (Bool) -> Void,
            connection: UInt64, maxInFlight: Int, inFlightOnConnection: Int, client: String?, relaysClients: Bool,
            rawID: ByteBuffer?, trace: ByteBuffer?, progressSink: @escaping @Sendable (ByteBuffer) -> Void
        ) {
            self.clientBacklog = clientBacklog
            self.holdReplies = holdReplies
            self.connection = connection
            self.maxInFlight = maxInFlight
            self.inFlightOnConnection = inFlightOnConnection
            self.client = client
            self.relaysClients = relaysClients
            self.rawID = rawID
            self.trace = trace
            self.progressSink = progressSink
        }
    }

    /// Why a reply for this request would be dropped now (the client has replies waiting
    /// unread up to its budget), or nil. The Gateway asks it as each forwarded reply arrives,
    /// so that a reply nobody reads is never held in memory.
    public var clientBacklog: @Sendable () -> RPCError? { shared.clientBacklog }
    /// With true, makes the caller's connection one whose replies are held, never dropped,
    /// however many wait unread (false undoes it): the connection is not read while they fill
    /// its buffer (back-pressure), and only the process's budget can still drop them. For a
    /// client that relays many clients'
    /// requests and reads every reply (the HTTP front): a reply dropped there is another
    /// client's answer lost.
    public var holdReplies: @Sendable (Bool) -> Void { shared.holdReplies }
    /// The caller's connection, unique in the process: with the request's id, what an
    /// `rpc.cancel` names (``RPCHandler/cancel(requestID:connection:)``).
    public var connection: UInt64 { shared.connection }
    /// Requests the caller's connection may have in flight.
    public var maxInFlight: Int { shared.maxInFlight }
    /// Requests the caller's connection had in flight when this one was admitted, this one
    /// included: 1 for a client with nothing else waiting (a process-wide limit can admit it
    /// anyway, so that clients holding many cannot shut out one holding none).
    public var inFlightOnConnection: Int { shared.inFlightOnConnection }
    /// Who the request is for (the frame's `client`, docs/PROTOCOL.md §3), if it said.
    public var client: String? { shared.client }
    /// Whether the caller relays many clients' requests and reads every reply (it said so with
    /// ``holdReplies``): the HTTP front. Its frames' `client` is kept; anyone else's is not.
    public var relaysClients: Bool { shared.relaysClients }
    /// The request's id as the client wrote it (nil for a notification).
    public var rawID: ByteBuffer? { shared.rawID }
    /// The frame's `trace` value as sent (a JSON string), if it had one.
    private var trace: ByteBuffer? { shared.trace }

    /// The request's trace id (docs/PROTOCOL.md §3), when the frame carried a valid one. A
    /// handler's task runs with it as ``RequestTrace/current``, so that every line it logs
    /// carries it; code that logs outside that task (a forward's reply, on an event loop) adds
    /// ``traceMetadata``.
    public var traceID: String? {
        guard let trace, trace.readableBytes == 34 else { return nil }
        let id = trace.getString(at: trace.readerIndex + 1, length: 32) ?? ""
        return RequestTrace.isValid(id) ? id : nil
    }

    /// `["trace-id": …]`, or nothing for a request without a trace id.
    public var traceMetadata: Logger.Metadata {
        traceID.map { ["trace-id": .string($0)] } ?? [:]
    }

    /// `progressSink` writes a frame to the caller's connection (queued in order with the
    /// frames written before it, and written at the end of the event loop's turn).
    public init(
        logger: Logger, rawID: ByteBuffer?, clientBacklog: @escaping @Sendable () -> RPCError? = { nil },
        holdReplies: @escaping @Sendable (Bool) -> Void = { _ in }, connection: UInt64 = 0, maxInFlight: Int = .max,
        inFlightOnConnection: Int = 1, trace: ByteBuffer? = nil, client: String? = nil, relaysClients: Bool = false,
        progressSink: @escaping @Sendable (ByteBuffer) -> Void
    ) {
        self.logger = logger
        self.shared = Shared(
            clientBacklog: clientBacklog, holdReplies: holdReplies, connection: connection, maxInFlight: maxInFlight,
            inFlightOnConnection: inFlightOnConnection, client: client, relaysClients: relaysClients, rawID: rawID,
            trace: trace, progressSink: progressSink)
    }

    /// Sends a `progress` notification for this request to the caller (nothing for notifications).
    public func progress(done: Int, total: Int, message: String) async {
        guard let rawID else { return }
        shared.progressSink(Frames.progress(rawID: rawID, done: done, total: total, message: message))
    }

    /// Sends a complete frame to the caller's connection (the Gateway forwards notifications so).
    public func send(frame: ByteBuffer) async {
        shared.progressSink(frame)
    }

    /// ``send(frame:)`` from code that is not async (a reply arriving on an event loop).
    public func sendNow(frame: ByteBuffer) {
        shared.progressSink(frame)
    }
}
