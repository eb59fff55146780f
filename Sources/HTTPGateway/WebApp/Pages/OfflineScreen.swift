import RnmAPI

/// The mirror's state per service, the upstreams' states, and the sync's button and progress.
struct OfflineScreen {
    struct Service {
        var name: String
        var mirror: String
        var records: String
        var upstream: String
    }

    /// The sync's button and progress bar: the bar hidden until a sync starts, with no value
    /// until the sync knows its size (the page's script then follows it).
    struct Sync {
        var running: Bool
        var hidden: Bool
        var total: Int
        var done: Int?
        var summary: String
    }

    var frame: PageFrame
    var services: [Service]
    var sync: Sync

    init(health: [(String, Result<ServiceHealth, any Error>)], sync: SyncJob.State, csrf: String) {
        frame = PageFrame(title: "Offline", current: "/app/offline", csrf: csrf)
        services = health.map { name, result in
            switch result {
            case .success(let health):
                let mirror = health.mirror
                let upstream = health.upstream
                return Service(
                    name: name,
                    mirror: mirror.map { $0.complete ? "complete, made \($0.completedAt ?? "?")" : "not complete" }
                        ?? "none yet",
                    records: mirror.map { String($0.records) } ?? "0",
                    upstream: (upstream.state ?? "ok")
                        + (upstream.lastError.map { ": \($0)" } ?? "")
                        + (upstream.lastSuccessAt.map { " (last answer \($0))" } ?? ""))
            case .failure(let error):
                return Service(
                    name: name, mirror: "unknown", records: "—",
                    upstream: "the service cannot be asked: \(PublicResponse.describe(error).message)")
            }
        }
        self.sync = Sync(
            running: sync.running, hidden: !sync.running && !sync.finished, total: max(sync.total, 1),
            done: sync.total > 0 ? sync.done : nil, summary: sync.summary)
    }
}
