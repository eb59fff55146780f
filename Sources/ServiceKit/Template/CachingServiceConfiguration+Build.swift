import Logging
import Messaging
import NIOCore
import RnmAPI
import ServiceLifecycle
import ServiceRuntime
import Telemetry

extension CachingServiceConfiguration {
    /// The upstream fetcher of `service`: the configured base only, with its timeout and body limit.
    public func makeFetcher(for service: ServiceName) -> URLSessionFetcher {
        URLSessionFetcher(
            baseURL: upstreamURL, timeoutMilliseconds: upstreamTimeoutMilliseconds, maxBodyBytes: upstreamMaxBytes,
            maxConnections: upstreamMaxConnections,
            metrics: UpstreamMetrics(upstream: service.upstreamName, instruments: instruments))
    }

    /// The cache rule (the max age, and `staleWhileRevalidate` seconds past it) with the
    /// upstream's state machine, which `probe` (one cheap request) checks while it is failing.
    public func makePolicy(
        for service: ServiceName, staleWhileRevalidate: Int = 0, logger: Logger,
        probe: @escaping @Sendable () async throws(UpstreamError) -> Void
    ) -> CachePolicy {
        let retry = UpstreamHealth.Retry(
            maxDelay: .milliseconds(retryMaxMilliseconds), maxRetryAfter: .milliseconds(retryAfterMaxMilliseconds))
        return CachePolicy(
            maxAge: Double(maxAgeSeconds), staleWhileRevalidate: Double(staleWhileRevalidate),
            health: UpstreamHealth(retry: retry, probe: probe, logger: logger),
            storage: StorageHealth(path: databasePath, logger: logger), metrics: CacheMetrics(instruments: instruments),
            upstreamMetrics: UpstreamMetrics(upstream: service.upstreamName, instruments: instruments))
    }

    /// The reply cache of `replyCacheBytes` (nil when that is 0: off), emptied by every change
    /// to `database` that can change an answer, so that no kept reply outlives its data; each
    /// such change then counted in `changes` (`<prefix>.changes`).
    public func makeReplyCache(
        invalidatedBy database: some CacheDatabase, counting changes: DataChanges
    ) -> ExpiringCache<ByteBuffer>? {
        let cache = replyCacheBytes > 0 ? ExpiringCache<ByteBuffer>(maxBytes: replyCacheBytes) : nil
        database.pool.invalidateOnCommit(cache, counting: changes)
        return cache
    }

    /// The service's server on its socket, answering with `handler`, as a lifecycle service.
    public func makeServer(
        _ service: ServiceName, handler: any RPCHandler, logger: Logger,
        onListening: (@Sendable () async -> Void)?
    ) -> any Service {
        ServerService(
            RPCServer(
                configuration: limits.server(service, socketPath: socketPath, instruments: instruments),
                handler: handler, logger: logger, onListening: onListening))
    }
}
