import Messaging

extension Setting {
    /// The settings table's part for what every process, or the Gateway, reads: the sockets, the
    /// logs and metrics, the wire's limits, the event loops (nil for a setting of another part).
    var processSpec: SettingSpec? {
        switch self {
        case .gatewaySocket:
            SettingSpec(
                "The Gateway's socket",
                default: .described("$XDG_RUNTIME_DIR/rnm/gateway.sock or /tmp/rnm-<uid>/gateway.sock"),
                readers: [.gateway, .httpGateway, .rnmctl],
                flagIn: [.gateway: "socket", .httpGateway: "gateway-socket", .rnmctl: "socket"])
        case .charactersSocket:
            SettingSpec(
                "The CharacterService's socket", default: .described("characters.sock beside the Gateway's"),
                readers: [.characterService, .gateway],
                flagIn: [.characterService: "socket", .gateway: "characters-socket"])
        case .universitiesSocket:
            SettingSpec(
                "The UniversityService's socket", default: .described("universities.sock beside the Gateway's"),
                readers: [.universityService, .gateway],
                flagIn: [.universityService: "socket", .gateway: "universities-socket"])
        case .requestTimeoutMilliseconds:
            SettingSpec(
                "Deadline of one request, in ms; progress restarts it", default: .integer(15000), range: 1...3_600_000,
                readers: [.gateway, .httpGateway], flag: "request-timeout-ms")
        case .healthTimeoutMilliseconds:
            // Health checks that call gateway.health must wait longer than this, or a hung service
            // fails the Gateway's own check (scripts/kube-check and SettingsTableTests hold the
            // manifests and docker-compose.yml to it). At least 1 s: a CharacterService's health
            // waits 500 ms for its PostgreSQL (PostgresFavorites), which must not make the whole
            // service look down; at most 20 s, under rnmctl's own 30 s deadline.
            SettingSpec(
                "How long gateway.health waits for each service's health before it says the service is down, "
                    + "in ms; health checks calling gateway.health must wait longer. The HTTP front's /readyz "
                    + "waits it + 0.5 s",
                default: .integer(2000), range: 1000...20_000, readers: [.gateway, .httpGateway],
                flag: "health-timeout-ms")
        case .maxFrameBytes:
            SettingSpec(
                "Largest frame payload accepted", default: .integer(WireLimits.maxFrameBytes),
                range: 1...Int(UInt32.max), readers: .servers, flag: "max-frame-bytes")
        case .logLevel:
            SettingSpec(
                "trace, debug, info, notice, warning, error or critical", default: .text("info"), readers: .servers,
                flag: "log-level")
        case .logFormat:
            SettingSpec(
                "text (readable lines) or json (one object per line: time, level, process, message, metadata)",
                default: .text("text"), readers: .servers, flag: "log-format")
        case .metrics:
            SettingSpec(
                "on or off: whether the process records metrics (its metrics method, GET /metrics)",
                default: .text("on"), readers: .servers, flag: "metrics")
        case .frameTimeoutMilliseconds:
            SettingSpec(
                "Time a started frame may stay incomplete before the connection is closed, in ms",
                default: .integer(WireLimits.frameTimeoutMilliseconds), range: 1...3_600_000, readers: .rpcServers,
                flag: "frame-timeout-ms")
        case .maxConnections:
            SettingSpec(
                "Client connections a process keeps open; past it a new one is sent -32005 and closed",
                default: .integer(WireLimits.maxConnections), range: 1...1_000_000, readers: .rpcServers,
                flag: "max-connections")
        case .maxUnreadBytes:
            // The Gateway's own memory for clients that do not read, over all of them.
            SettingSpec(
                "Bytes of replies waiting unread over all the Gateway's connections; past it a client with "
                    + "replies waiting has the next dropped (-32005)",
                default: .integer(WireLimits.maxUnreadBytes), range: 1_048_576...Int(Int32.max), readers: [.gateway],
                flag: "max-unread-bytes")
        case .unreadTimeoutMilliseconds:
            // As the HTTP front's RNM_HTTP_SEND_TIMEOUT_MS (nginx's send_timeout).
            SettingSpec(
                "A client that takes none of its replies for this long is disconnected (it is not read "
                    + "meanwhile), in ms",
                default: .integer(WireLimits.unreadTimeoutMilliseconds), range: 100...3_600_000, readers: .rpcServers,
                flag: "unread-timeout-ms")
        case .connectionBufferBytes:
            // A service's is 16 Gateway clients' worth: no one client of the Gateway can fill
            // the service link and stall the others.
            SettingSpec(
                "Bytes one client connection may hold: requests being served and replies not yet read; "
                    + "past it the connection is not read",
                default: .perProcess(
                    gateway: WireLimits.connectionBufferBytes,
                    service: 16 * WireLimits.connectionBufferBytes),
                range: 65_536...Int(Int32.max), readers: .rpcServers, flag: "connection-buffer-bytes")
        case .maxInFlightPerConnection:
            // The Gateway's is a client's fair share of a service link; a service's at least the
            // Gateway's RNM_MAX_IN_FLIGHT and one request a connection past it (a client with
            // nothing else in flight is served past it), so that it never refuses the Gateway's link.
            SettingSpec(
                "Requests one connection may have in flight; more get -32005",
                default: .perProcess(gateway: 256, service: 2 * WireLimits.maxInFlightPerConnection),
                range: 1...1_000_000, readers: .rpcServers, flag: "max-in-flight-per-connection")
        case .maxInFlight:
            SettingSpec(
                "Requests in flight in the Gateway over all clients; more get -32005", default: .integer(4096),
                range: 1...1_000_000, readers: [.gateway], flag: "max-in-flight")
        case .eventLoops:
            SettingSpec(
                "Event loop threads (the process's tasks run on them too)",
                default: .described("\(EventLoopExecutor.gatewayThreads) in the Gateway, one per core elsewhere"),
                range: 1...256, readers: .servers)
        default: nil
        }
    }
}
