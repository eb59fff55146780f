import Messaging

/// The default of every setting that is a limit, in one place (README "Settings" and
/// docs/PROTOCOL.md §7 list them). The wire's own come from ``WireLimits``.
public enum Defaults {
    /// `RNM_MAX_FRAME_BYTES`: the largest frame payload, 1 MiB.
    public static let maxFrameBytes = WireLimits.maxFrameBytes
    /// `RNM_CONNECTION_BUFFER_BYTES` in the Gateway: what one client connection may hold, 4 MiB.
    public static let connectionBufferBytes = WireLimits.connectionBufferBytes
    /// `RNM_CONNECTION_BUFFER_BYTES` in a service: 64 MiB, sixteen times a Gateway client's, so
    /// that no one client of the Gateway can fill the service link and stall the others.
    public static let serviceConnectionBufferBytes = 16 * WireLimits.connectionBufferBytes
    /// `RNM_MAX_IN_FLIGHT_PER_CONNECTION` in the Gateway: a client's fair share of a service link.
    public static let gatewayMaxInFlightPerConnection = 256
    /// `RNM_MAX_IN_FLIGHT_PER_CONNECTION` in a service: at least the Gateway's `RNM_MAX_IN_FLIGHT`,
    /// so that the service never refuses the Gateway's link.
    public static let serviceMaxInFlightPerConnection = WireLimits.maxInFlightPerConnection
    /// `RNM_MAX_IN_FLIGHT`: requests the Gateway has in flight over all clients.
    public static let gatewayMaxInFlight = 4096
    /// `RNM_MAX_PARAM_BYTES`: the longest string parameter (names, filters, countries).
    public static let maxParamBytes = 256
    /// `RNM_UPSTREAM_MAX_BYTES`: the largest upstream response body, 16 MiB.
    public static let upstreamMaxBytes = 16 * 1_048_576
    /// `RNM_UPSTREAM_RETRY_MAX_MS`: a failing upstream is probed at least every 5 s (the first
    /// probe after 250 ms, then doubling, with jitter).
    public static let upstreamRetryMaxMilliseconds = 5000
    /// `RNM_UPSTREAM_RETRY_AFTER_MAX_MS`: a `Retry-After` is obeyed up to 60 s.
    public static let upstreamRetryAfterMaxMilliseconds = 60000
    /// `RNM_CHARACTERS_STALE_WHILE_REVALIDATE`: for 600 s past its max age, a stored answer is
    /// given at once while it is refreshed in the background.
    public static let charactersStaleWhileRevalidate = 600
    /// `RNM_CHARACTERS_MAX_LIST_PAGES`: cached pages of filtered lists kept.
    public static let charactersMaxListPages = 5000
    /// `RNM_REPLY_CACHE_BYTES`: 4 MiB of finished replies per service (about a thousand
    /// characters with their episodes).
    public static let replyCacheBytes = 4 * 1_048_576
    /// `RNM_HTTP_ADDRESS`: loopback only, port 8080.
    public static let httpAddress = "127.0.0.1:8080"
    /// `RNM_PUBLIC_URL`: the HTTPGateway's own address, as a browser on this machine reaches it.
    public static let publicURL = "http://127.0.0.1:8080"
    /// `RNM_HTTP_MAX_URL_BYTES`: 8 KiB, what common servers (nginx, Node) accept.
    public static let httpMaxURLBytes = 8192
    /// `RNM_HTTP_MAX_HEADER_BYTES`: 16 KiB of headers per request.
    public static let httpMaxHeaderBytes = 16384
    /// `RNM_HTTP_IDLE_TIMEOUT_MS`: a keep-alive connection idle for 60 s is closed.
    public static let httpIdleTimeoutMilliseconds = 60000
    /// `RNM_HTTP_CACHE_MS`: an answer that came fresh from rnm's cache is answered again from
    /// the HTTPGateway's memory for 1 s.
    public static let httpCacheMilliseconds = 1000
    /// `RNM_HTTP_CACHE_BYTES`: 8 MiB of such answers.
    public static let httpCacheBytes = 8 * 1_048_576
}
