import Logging
import Messaging
import NIOCore
import RnmAPI
import ServiceLifecycle
import ServiceRuntime

extension CachingServiceConfiguration {
    /// The upstream fetcher: the configured base only, with its timeout and body limit.
    public func makeFetcher() -> URLSessionFetcher {
        URLSessionFetcher(
            baseURL: upstreamURL, timeoutMilliseconds: upstreamTimeoutMilliseconds, maxBodyBytes: upstreamMaxBytes)
    }

    /// When to ask a failing upstream again (``UpstreamHealth``).
    public var retry: UpstreamHealth.Retry {
        UpstreamHealth.Retry(
            maxDelay: .milliseconds(retryMaxMilliseconds),
            maxRetryAfter: .milliseconds(retryAfterMaxMilliseconds))
    }

    /// The reply cache of `replyCacheBytes` (nil when that is 0: off). Give it to the database's
    /// `invalidateOnCommit`, so that no kept reply outlives its data.
    public func makeReplyCache() -> ExpiringCache<ByteBuffer>? {
        replyCacheBytes > 0 ? ExpiringCache(maxBytes: replyCacheBytes) : nil
    }

    /// The service's server on its socket, answering with `handler`, as a lifecycle service.
    public func makeServer(
        _ service: ServiceName, handler: any RPCHandler, logger: Logger,
        onListening: (@Sendable () async -> Void)?
    ) -> any Service {
        ServerService(
            RPCServer(
                configuration: limits.server(service, socketPath: socketPath),
                handler: handler, logger: logger, onListening: onListening))
    }
}
