import RnmAPI

/// The mirror's state per service, the upstreams' states, and the sync's button and progress.
struct OfflineScreen {
    struct Service {
        var name: String
        var mirror: String
        var records: String
        var upstream: String
    }

    var frame: PageFrame
    var services: [Service]
    var running: Bool
    var shown: Bool
    var hasValue: Bool
    var done: Int
    var total: Int
    var summary: String

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
        running = sync.running
        shown = sync.running || sync.finished
        hasValue = sync.total > 0
        done = sync.done
        total = max(sync.total, 1)
        summary = sync.summary
    }
}
