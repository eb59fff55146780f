import Logging
import NIOCore

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

    public var methodNames: Set<String> { methods }

    /// Registers a method whose result is encoded with the shared JSON encoder.
    public mutating func register<P, R>(
        _ method: RPCMethod<P, R>, _ body: @escaping @Sendable (P, RPCRequestContext) async throws -> R
    ) {
        routes[method.name] = { request, context in
            let params = try request.decodeParams(P.self)
            return try JSONCoding.encode(try await body(params, context))
        }
    }

    /// Registers a method whose handler writes its own result JSON (for results spliced from
    /// stored bytes). The JSON must have the shape of `R`.
    public mutating func registerEncoded<P, R>(
        _ method: RPCMethod<P, R>, _ body: @escaping @Sendable (P, RPCRequestContext) async throws -> ByteBuffer
    ) {
        routes[method.name] = { request, context in
            try await body(try request.decodeParams(P.self), context)
        }
    }

    /// Registers a read whose result may be answered again, unchanged, until its
    /// `validUntil` (or until the reply cache is emptied), without running `body`.
    public mutating func registerCached<P, R>(
        _ method: RPCMethod<P, R>,
        _ body: @escaping @Sendable (P, RPCRequestContext) async throws -> CacheableResult
    ) {
        guard let cache = replyCache else {
            registerEncoded(method) { params, context in try await body(params, context).json }
            return
        }
        cachedMethods.insert(method.name)
        routes[method.name] = { request, context in
            // Read before the work: a change while it runs keeps its result out of the cache.
            let generation = cache.generation
            let result = try await body(try request.decodeParams(P.self), context)
            // A request given up on (`rpc.cancel`) may have been cut short: never kept.
            if let validUntil = result.validUntil, !Task.isCancelled, let key = Self.cacheKey(request) {
                cache.store(
                    result.json, for: key, size: result.json.readableBytes, expires: validUntil, generation: generation)
            }
            return result.json
        }
    }

    public func cachedResult(for request: RPCRequest) -> ByteBuffer? {
        guard let replyCache, cachedMethods.contains(request.method), let key = Self.cacheKey(request) else {
            return nil
        }
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
            throw RPCError(
                .methodNotFound, "method \"\(RPCError.excerpt(request.method))\" not found", service: service)
        }
        return .result(try await route(request, context))
    }
}
