import Logging
import NIOCore

/// One request as a handler sees it: its method and its raw `params`, decoded only on demand.
public struct RPCRequest: Sendable {
    /// The parsed envelope, as received.
    public let envelope: Envelope
    /// The method name.
    public var method: String { envelope.method ?? "" }

    public init(envelope: Envelope) {
        self.envelope = envelope
    }

    /// Decodes `params` (absent params decode as `{}`).
    /// - Throws: a `DecodingError`, which the server answers with -32602.
    public func decodeParams<P: Decodable>(_ type: P.Type = P.self) throws -> P {
        try JSONCoding.decode(P.self, from: envelope.params ?? ByteBuffer(string: "{}"))
    }
}

/// What a handler may use while it serves one request.
public struct RPCRequestContext: Sendable {
    /// A logger whose metadata names the request id and method.
    public var logger: Logger
    private let progressSink: @Sendable (ByteBuffer) async -> Void
    private let rawID: ByteBuffer?

    public init(logger: Logger, rawID: ByteBuffer?, progressSink: @escaping @Sendable (ByteBuffer) async -> Void) {
        self.logger = logger
        self.rawID = rawID
        self.progressSink = progressSink
    }

    /// Sends a `progress` notification for this request to the caller (nothing for notifications).
    public func progress(done: Int, total: Int, message: String) async {
        guard let rawID else { return }
        await progressSink(Frames.progress(rawID: rawID, done: done, total: total, message: message))
    }

    /// Sends a complete frame to the caller's connection (the Gateway forwards notifications so).
    public func send(frame: ByteBuffer) async {
        await progressSink(frame)
    }
}

/// What a handler answers.
public enum RPCReply: Sendable {
    /// The `result` JSON; the server wraps it in a response with the request's id.
    case result(ByteBuffer)
    /// A complete reply frame, already carrying the request's id (forwarded replies).
    case frame(ByteBuffer)
    /// No reply (a forwarded notification).
    case none
}

/// Serves requests. Return the reply, or throw (errors are mapped to wire codes by
/// ``RPCError/init(mapping:service:)``).
public protocol RPCHandler: Sendable {
    func handle(_ request: RPCRequest, context: RPCRequestContext) async throws -> RPCReply
}

/// An ``RPCHandler`` that dispatches by method name to typed closures.
public struct RPCRouter: RPCHandler {
    public typealias Route = @Sendable (RPCRequest, RPCRequestContext) async throws -> ByteBuffer

    /// The service name used in errors.
    public let service: String
    private var routes: [String: Route] = [:]

    public init(service: String) {
        self.service = service
    }

    /// Registers a method whose result is encoded with the shared JSON encoder.
    public mutating func register<P, R>(_ method: RPCMethod<P, R>, _ body: @escaping @Sendable (P, RPCRequestContext) async throws -> R) {
        routes[method.name] = { request, context in
            let params = try request.decodeParams(P.self)
            return try JSONCoding.encode(try await body(params, context))
        }
    }

    /// Registers a method whose handler writes its own result JSON (for results spliced from
    /// stored bytes). The JSON must have the shape of `R`.
    public mutating func registerEncoded<P, R>(_ method: RPCMethod<P, R>, _ body: @escaping @Sendable (P, RPCRequestContext) async throws -> ByteBuffer) {
        routes[method.name] = { request, context in
            try await body(try request.decodeParams(P.self), context)
        }
    }

    public func handle(_ request: RPCRequest, context: RPCRequestContext) async throws -> RPCReply {
        guard let route = routes[request.method] else {
            throw RPCError(.methodNotFound, "method \"\(RPCError.excerpt(request.method))\" not found", service: service)
        }
        return .result(try await route(request, context))
    }
}
