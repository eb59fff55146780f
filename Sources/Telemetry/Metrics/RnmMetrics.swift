/// Every metric rnm exposes, in one table. The merged exposition (`GET /metrics`,
/// `rnmctl metrics`) adds a `process` label to each series: `gateway`, `characters`,
/// `universities` or `http`.
public enum RnmMetrics {
    // MARK: Requests over the sockets (every process that serves them)

    public static let rpcRequests = MetricDefinition(
        "rnm_rpc_requests_total", .counter, labels: ["method", "outcome"],
        "Requests answered, by method and outcome (ok, or the error's name).")
    public static let rpcRequestDuration = MetricDefinition(
        "rnm_rpc_request_duration_seconds", .histogram, labels: ["method"],
        "Time from a request read to its reply handed to the connection, by method.")
    public static let rpcRequestsInFlight = MetricDefinition(
        "rnm_rpc_requests_in_flight", .gauge, "Requests being served now.")
    public static let rpcConnections = MetricDefinition(
        "rnm_rpc_connections", .gauge, "Client connections open now.")
    public static let refused = MetricDefinition(
        "rnm_refused_total", .counter, labels: ["limit"],
        "Requests, replies or connections refused by a limit, by the limit's setting.")

    // MARK: Upstreams (the two caching services)

    public static let upstreamRequests = MetricDefinition(
        "rnm_upstream_requests_total", .counter, labels: ["upstream", "outcome"],
        """
        Requests to an upstream, by outcome: ok, not_modified, client_error, server_error, \
        rate_limited, timeout, connect_error, too_large, invalid, refused (not sent: the upstream \
        is failing or asked to wait), busy (every connection to it stayed in use), cancelled (nobody \
        waited for it any more).
        """)
    public static let upstreamRequestDuration = MetricDefinition(
        "rnm_upstream_request_duration_seconds", .histogram, labels: ["upstream"],
        "Time an upstream took to answer (or to fail).")
    public static let upstreamResponseBytes = MetricDefinition(
        "rnm_upstream_response_bytes_total", .counter, labels: ["upstream"], "Body bytes received from an upstream.")
    public static let upstreamState = MetricDefinition(
        "rnm_upstream_state", .gauge, labels: ["upstream", "state"],
        "1 for the upstream's state now (ok, failing, rate_limited), 0 for the others.")

    // MARK: The cache rule

    public static let cacheAnswers = MetricDefinition(
        "rnm_cache_answers_total", .counter, labels: ["source"],
        """
        Reads answered, by where the answer came from: reply_cache (a finished reply kept), \
        database (fresh in the cache), fetched (from the upstream), revalidated (stale while \
        revalidate: the cached copy, refreshed behind it), stale (the upstream failed).
        """)
    public static let singleFlightJoins = MetricDefinition(
        "rnm_single_flight_joins_total", .counter,
        "Reads that joined an upstream fetch already in flight instead of starting one.")

    // MARK: Storage and the offline mirror

    public static let databaseBytes = MetricDefinition(
        "rnm_database_bytes", .gauge, labels: ["database", "file"],
        "Size of a SQLite database's files: main and wal.")
    public static let mirrorAge = MetricDefinition(
        "rnm_mirror_age_seconds", .gauge, labels: ["mirror"],
        "Seconds since the offline mirror was last completed (-1: never).")
    public static let mirrorComplete = MetricDefinition(
        "rnm_mirror_complete", .gauge, labels: ["mirror"], "1 when the offline mirror holds every record, else 0.")

    // MARK: The HTTP front

    public static let httpRequests = MetricDefinition(
        "rnm_http_requests_total", .counter, labels: ["route", "status"],
        "HTTP requests answered, by route and status code.")
    public static let httpRequestDuration = MetricDefinition(
        "rnm_http_request_duration_seconds", .histogram, labels: ["route"],
        "Time to answer an HTTP request, by route.")
    public static let httpCacheHits = MetricDefinition(
        "rnm_http_cache_hits_total", .counter, "HTTP answers repeated from the micro-cache (RNM_HTTP_CACHE_MS).")
    public static let httpConnections = MetricDefinition(
        "rnm_http_connections", .gauge, "HTTP connections open now.")
    public static let httpSendTimeouts = MetricDefinition(
        "rnm_http_send_timeouts_total", .counter,
        "HTTP connections closed because the client read nothing of its answers for RNM_HTTP_SEND_TIMEOUT_MS.")
    public static let httpBodyTimeouts = MetricDefinition(
        "rnm_http_body_timeouts_total", .counter,
        "HTTP connections closed because a request's body did not come whole within RNM_HTTP_BODY_TIMEOUT_MS.")

    // MARK: The process

    public static let memoryTrims = MetricDefinition(
        "rnm_memory_trims_total", .counter,
        "Times the process gave the memory it had freed back to the system, once quiet after a burst.")

    public static let residentMemory = MetricDefinition(
        "process_resident_memory_bytes", .gauge, "Resident memory size in bytes.")
    public static let virtualMemory = MetricDefinition(
        "process_virtual_memory_bytes", .gauge, "Virtual memory size in bytes.")
    public static let cpuSeconds = MetricDefinition(
        "process_cpu_seconds_total", .counter, "Total user and system CPU time spent in seconds.")
    public static let openFDs = MetricDefinition("process_open_fds", .gauge, "Number of open file descriptors.")
    public static let maxFDs = MetricDefinition(
        "process_max_fds", .gauge, "Maximum number of open file descriptors.")
    public static let startTime = MetricDefinition(
        "process_start_time_seconds", .gauge, "Start time of the process since unix epoch in seconds.")

    // MARK: The scrape itself

    public static let up = MetricDefinition(
        "rnm_up", .gauge, labels: ["process"],
        "1 when the process answered this scrape, 0 when it is down or unreachable.")

    /// Every metric, for the exposition's help text and the table in docs/OPERATIONS.md.
    public static let all: [MetricDefinition] = [
        rpcRequests, rpcRequestDuration, rpcRequestsInFlight, rpcConnections, refused,
        upstreamRequests, upstreamRequestDuration, upstreamResponseBytes, upstreamState,
        cacheAnswers, singleFlightJoins,
        databaseBytes, mirrorAge, mirrorComplete,
        httpRequests, httpRequestDuration, httpCacheHits, httpConnections, httpSendTimeouts, httpBodyTimeouts,
        memoryTrims, residentMemory, virtualMemory, cpuSeconds, openFDs, maxFDs, startTime,
        up,
    ]

    /// Each metric by name.
    public static let byName: [String: MetricDefinition] = Dictionary(all.map { ($0.name, $0) }) { first, _ in first }
}
