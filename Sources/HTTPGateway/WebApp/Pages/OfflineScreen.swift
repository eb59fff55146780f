import RnmAPI

/// The mirror's state per service, the upstreams' states, and the sync's button and progress.
struct OfflineScreen {
    /// A service's row: its mirror, and its upstream in a person's words (what the upstream
    /// itself said as a detail).
    struct Service {
        var name: String
        var mirror: String
        var mirrorMade: TimeText?
        var records: String
        var upstream: String
        var lastAnswer: TimeText?
        var detail: String?
    }

    /// The sync's button and progress bar: the bar hidden until a sync starts, with no value
    /// until the sync knows its size (the page's script then follows it).
    struct Sync {
        var running: Bool
        var hidden: Bool
        var total: Int
        var done: Int?
        var summary: String
        /// The upstream's own words when the sync stopped on it.
        var detail: String?
    }

    var frame: PageFrame
    var services: [Service]
    var sync: Sync

    init(health: [(String, ServiceName, Result<ServiceHealth, any Error>)], sync: SyncJob.State, csrf: String) {
        frame = PageFrame(screen: .offline, csrf: csrf)
        services = health.map { name, service, result in
            switch result {
            case .success(let health):
                let mirror = health.mirror
                let upstream = health.upstream
                let failing = upstream.state.map { $0 != "ok" } ?? false
                let trouble = failing ? upstream.lastError.map { UpstreamTrouble($0).sentence(service) } : nil
                return Service(
                    name: name,
                    mirror: mirror.map { $0.complete ? "complete, made" : "not complete" } ?? "none yet",
                    mirrorMade: mirror.flatMap { $0.complete ? $0.completedAt.map(TimeText.init) : nil },
                    records: mirror.map { String($0.records) } ?? "0",
                    upstream: trouble ?? (failing ? "Not answering" : "Answering when last asked"),
                    lastAnswer: upstream.lastSuccessAt.map(TimeText.init),
                    detail: failing ? upstream.lastError : nil)
            case .failure(let error):
                return Service(
                    name: name, mirror: "unknown", records: "—",
                    upstream: "The service cannot be asked: \(PublicResponse.describe(error).message)")
            }
        }
        self.sync = Sync(
            running: sync.running, hidden: !sync.running && !sync.finished, total: max(sync.total, 1),
            done: sync.total > 0 ? sync.done : nil, summary: sync.summary, detail: sync.detail)
    }
}
