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
        let params = envelope.params ?? ByteBuffer(string: "{}")
        do {
            return try JSONCoding.decode(P.self, from: params)
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            // Foundation says only "not valid JSON" for a number that does not fit an integer
            // (`1.5`, `1e30`): find the field, so that the error can name it.
            guard let field = Self.fieldWithNonIntegerNumber(in: params) else { throw DecodingError.dataCorrupted(context) }
            throw DecodingError.dataCorrupted(.init(codingPath: [FieldKey(stringValue: field)], debugDescription: "not a whole number"))
        }
    }

    /// The first top-level member of `params` holding a number (or an array of numbers) that
    /// is not a 64-bit integer.
    static func fieldWithNonIntegerNumber(in params: ByteBuffer) -> String? {
        params.withUnsafeReadableBytes { bytes -> String? in
            guard let scanned = try? JSONScanner.scan(bytes) else { return nil }
            for member in scanned.members where member.kind == .number || member.kind == .array {
                let text = String(decoding: bytes[member.value], as: UTF8.self)
                let tokens = text.split { "[], \n\r\t".contains($0) }
                let numbers = tokens.filter { $0.first.map { $0 == "-" || $0.isNumber } ?? false }
                if numbers.contains(where: { Int64($0) == nil }) {
                    return String(decoding: bytes[member.key], as: UTF8.self)
                }
            }
            return nil
        }
    }
}

/// A params member's name, as a coding key.
struct FieldKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// What a handler may use while it serves one request.
public struct RPCRequestContext: Sendable {
    /// A logger whose metadata names the request id and method.
    public var logger: Logger
    /// Why a reply for this request would be dropped now (the client has replies waiting
    /// unread up to its budget), or nil. The Gateway asks it as each forwarded reply arrives,
    /// so that a reply nobody reads is never held in memory.
    public let clientBacklog: @Sendable () -> RPCError?
    private let progressSink: @Sendable (ByteBuffer) -> Void
    private let rawID: ByteBuffer?

    /// `progressSink` writes a frame to the caller's connection at once (it is queued in order
    /// with the frames written before it).
    public init(logger: Logger, rawID: ByteBuffer?, clientBacklog: @escaping @Sendable () -> RPCError? = { nil },
                progressSink: @escaping @Sendable (ByteBuffer) -> Void) {
        self.logger = logger
        self.rawID = rawID
        self.clientBacklog = clientBacklog
        self.progressSink = progressSink
    }

    /// Sends a `progress` notification for this request to the caller (nothing for notifications).
    public func progress(done: Int, total: Int, message: String) async {
        guard let rawID else { return }
        progressSink(Frames.progress(rawID: rawID, done: done, total: total, message: message))
    }

    /// Sends a complete frame to the caller's connection (the Gateway forwards notifications so).
    public func send(frame: ByteBuffer) async {
        progressSink(frame)
    }

    /// ``send(frame:)`` from code that is not async (a reply arriving on an event loop).
    public func sendNow(frame: ByteBuffer) {
        progressSink(frame)
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

    /// The finished `result` of `request` when it needs no work at all (a reply-cache hit), or
    /// nil. The connection asks before it starts a task for the request and answers a hit
    /// where it read it: this must be quick and must never block.
    func cachedResult(for request: RPCRequest) -> ByteBuffer?

    /// Starts serving `request` without a task of its own, and later calls `reply` exactly
    /// once, from any thread, with what ``handle(_:context:)`` would have returned (or thrown).
    /// Returns false, calling nothing, to have the request served by ``handle(_:context:)`` in
    /// a task instead. Must be quick and never block: the connection calls it where it read
    /// the frame. The Gateway forwards this way.
    func start(_ request: RPCRequest, context: RPCRequestContext,
               reply: @escaping @Sendable (Result<RPCReply, any Error>) -> Void) -> Bool
}

extension RPCHandler {
    public func cachedResult(for request: RPCRequest) -> ByteBuffer? { nil }

    public func start(_ request: RPCRequest, context: RPCRequestContext,
                      reply: @escaping @Sendable (Result<RPCReply, any Error>) -> Void) -> Bool { false }
}

/// A result and how long it may be answered again as it is (nil: not at all).
public struct CacheableResult: Sendable {
    public var json: ByteBuffer
    public var validUntil: ContinuousClock.Instant?

    public init(json: ByteBuffer, validUntil: ContinuousClock.Instant?) {
        self.json = json
        self.validUntil = validUntil
    }
}

/// An ``RPCHandler`` that dispatches by method name to typed closures.
public struct RPCRouter: RPCHandler {
    public typealias Route = @Sendable (RPCRequest, RPCRequestContext) async throws -> ByteBuffer

    /// The service name used in errors.
    public let service: String
    private var routes: [String: Route] = [:]
    /// Finished results of the methods registered with ``registerCached(_:_:)``, by method and
    /// params bytes; the owner empties it whenever the data behind them changes.
    public let replyCache: ExpiringCache<ByteBuffer>?
    private var cachedMethods: Set<String> = []

    /// Params longer than this are never a reply-cache key.
    static let maxCachedParamsBytes = 1024

    public init(service: String, replyCache: ExpiringCache<ByteBuffer>? = nil) {
        self.service = service
        self.replyCache = replyCache
    }

    /// The names of the methods registered (for the route table's test).
    public var methods: Set<String> { Set(routes.keys) }

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

    /// Registers a read whose result may be answered again, unchanged, until its
    /// `validUntil` (or until the reply cache is emptied), without running `body`.
    public mutating func registerCached<P, R>(_ method: RPCMethod<P, R>,
                                              _ body: @escaping @Sendable (P, RPCRequestContext) async throws -> CacheableResult) {
        guard let cache = replyCache else {
            registerEncoded(method) { params, context in try await body(params, context).json }
            return
        }
        cachedMethods.insert(method.name)
        routes[method.name] = { request, context in
            // Read before the work: a change while it runs keeps its result out of the cache.
            let generation = cache.generation
            let result = try await body(try request.decodeParams(P.self), context)
            if let validUntil = result.validUntil, let key = Self.cacheKey(request) {
                cache.store(result.json, for: key, size: result.json.readableBytes, expires: validUntil, generation: generation)
            }
            return result.json
        }
    }

    public func cachedResult(for request: RPCRequest) -> ByteBuffer? {
        guard let replyCache, cachedMethods.contains(request.method), let key = Self.cacheKey(request) else { return nil }
        return replyCache.entry(for: key)?.value
    }

    /// `method`, a NUL, then the params bytes as sent (absent params and `{}` differ; both are fine).
    static func cacheKey(_ request: RPCRequest) -> String? {
        let params = request.envelope.params
        guard (params?.readableBytes ?? 0) <= maxCachedParamsBytes else { return nil }
        return request.method + "\u{0}" + (params.map { String(buffer: $0) } ?? "")
    }

    public func handle(_ request: RPCRequest, context: RPCRequestContext) async throws -> RPCReply {
        guard let route = routes[request.method] else {
            throw RPCError(.methodNotFound, "method \"\(RPCError.excerpt(request.method))\" not found", service: service)
        }
        return .result(try await route(request, context))
    }
}
