/// `characters.health` / `universities.health`.
public struct ServiceHealth: Codable, Sendable, Equatable {
    /// The upstream as this service sees it.
    public struct Upstream: Codable, Sendable, Equatable {
        public var url: String
        public var lastSuccessAt: String?
        public var lastError: String?
        /// When the upstream started failing (the first failure after a success), while it is.
        public var failingSince: String?
        /// `ok`, `failing` (not asked by reads; probed in the background) or `rate-limited`
        /// (it asked to wait, `Retry-After`). Absent from services older than this field.
        public var state: String?
        /// Failures since it started failing, while it is.
        public var failures: Int?
        /// When the next probe goes out, while failing.
        public var nextProbeAt: String?
        /// Until when it asked not to be asked, while rate-limited.
        public var rateLimitedUntil: String?

        public init(
            url: String, lastSuccessAt: String? = nil, lastError: String? = nil, failingSince: String? = nil,
            state: String? = nil, failures: Int? = nil, nextProbeAt: String? = nil,
            rateLimitedUntil: String? = nil
        ) {
            self.url = url
            self.lastSuccessAt = lastSuccessAt
            self.lastError = lastError
            self.failingSince = failingSince
            self.state = state
            self.failures = failures
            self.nextProbeAt = nextProbeAt
            self.rateLimitedUntil = rateLimitedUntil
        }
    }

    /// `characters` or `universities`.
    public var service: String
    /// `ok`, or `degraded` when the upstream is failing or the database cannot be written.
    public var status: String
    public var version: String
    public var uptimeSeconds: Double
    /// Rows in the cache, by table.
    public var cache: [String: Int]
    public var upstream: Upstream
    /// The offline mirror: complete or not, when it was made, how many records.
    public var mirror: MirrorState?
    /// The database as the service's writes found it. Absent from services older than this field.
    public var storage: Storage?

    /// What the service's writes found of its database.
    public struct Storage: Codable, Sendable, Equatable {
        /// `ok`, `full` (the disk), `read-only`, `damaged` or `failing` (another write error).
        public var state: String
        /// Why the last write failed, while writes fail.
        public var lastError: String?
        /// When writes started failing, while they do.
        public var failingSince: String?
        /// Writes that failed since the service started (answers fetched were sent all the same).
        public var failedWrites: Int
        /// Where a damaged database file was moved when the service started, if one was.
        public var setAside: String?
        /// Where the database is kept instead of its own file, which cannot be written (a
        /// read-only file system): what is stored there is lost when the service stops.
        public var standIn: String?

        public init(
            state: String, lastError: String?, failingSince: String?, failedWrites: Int, setAside: String?,
            standIn: String? = nil
        ) {
            self.standIn = standIn
            self.state = state
            self.lastError = lastError
            self.failingSince = failingSince
            self.failedWrites = failedWrites
            self.setAside = setAside
        }
    }

    /// What a sync left.
    public struct MirrorState: Codable, Sendable, Equatable {
        /// Whether a sync has completed (an interrupted one leaves the previous mirror).
        public var complete: Bool
        public var completedAt: String?
        public var records: Int
        public init(complete: Bool, completedAt: String?, records: Int) {
            self.complete = complete
            self.completedAt = completedAt
            self.records = records
        }
    }

    public init(
        service: String, status: String, version: String, uptimeSeconds: Double,
        cache: [String: Int], upstream: Upstream, mirror: MirrorState? = nil, storage: Storage? = nil
    ) {
        self.service = service
        self.status = status
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.cache = cache
        self.upstream = upstream
        self.mirror = mirror
        self.storage = storage
    }
}

/// `gateway.health`.
public struct GatewayHealth: Codable, Sendable, Equatable {
    /// One service as the Gateway sees it.
    public struct ServiceState: Codable, Sendable, Equatable {
        /// `up` or `down`.
        public var status: String
        public var latencyMs: Double?
        public var lastError: String?
        public init(status: String, latencyMs: Double?, lastError: String?) {
            self.status = status
            self.latencyMs = latencyMs
            self.lastError = lastError
        }
    }

    /// `ok`, or `degraded` when any service is down.
    public var status: String
    public var version: String
    public var uptimeSeconds: Double
    public var services: [String: ServiceState]
    /// Requests (and notifications) the Gateway has forwarded and not yet seen finished.
    public var inFlight: Int?

    public init(
        status: String, version: String, uptimeSeconds: Double, services: [String: ServiceState], inFlight: Int? = nil
    ) {
        self.status = status
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.services = services
        self.inFlight = inFlight
    }
}

/// The version every process reports.
public let rnmVersion = "0.1.0"
