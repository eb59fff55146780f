import Messaging
import RnmAPI
import Synchronization

/// "Make available offline": both services' syncs (`characters.sync`, then `universities.sync`)
/// run in the background, one at a time in the process, their progress kept for the page to
/// show (`/app/offline/progress`, polled by its script).
final class SyncJob: Sendable {
    /// What the page shows.
    struct State: Sendable, Codable {
        var running = false
        /// Ended since the process started (the page reloads to show the mirror).
        var finished = false
        var done = 0
        var total = 0
        var summary = "Not started."
    }

    private let state = Mutex(State())
    private let reader: GatewayReader

    init(reader: GatewayReader) {
        self.reader = reader
    }

    var current: State { state.withLock { $0 } }

    /// Starts the syncs unless they are running; false when they already were.
    func start() -> Bool {
        let started = state.withLock { state -> Bool in
            guard !state.running else { return false }
            state = State(running: true, finished: false, done: 0, total: 0, summary: "Starting…")
            return true
        }
        guard started else { return false }
        Task { await run() }
        return true
    }

    private func run() async {
        var summary: [String] = []
        do {
            let characters = try await reader.call(RPCMethods.charactersSync, NoParams()) { [self] update in
                progress(update, "Characters")
            }
            summary.append(
                "\(characters.characters) characters, \(characters.locations) locations, "
                    + "\(characters.episodes) episodes"
            )
            state.withLock { ($0.done, $0.total, $0.summary) = (0, 0, "Universities: downloading the world list…") }
            let universities = try await reader.call(RPCMethods.universitiesSync, NoParams()) { [self] update in
                progress(update, "Universities")
            }
            summary.append("\(universities.universities) universities of \(universities.countries) countries")
            finish("Available offline: " + summary.joined(separator: "; ") + ".", completed: true)
        } catch {
            let done = summary.isEmpty ? "" : " (done: \(summary.joined(separator: "; ")))"
            finish("\(Self.stopped(error))\(done).", completed: false)
        }
    }

    /// Why a sync stopped, as rnmctl says it: an upstream failure in the service's words (what
    /// it could not fetch, and that the previous mirror stays in force), not the API's "nothing
    /// cached", which is false of a mirror; anything else as the API says it.
    static func stopped(_ error: any Error) -> String {
        if let error = error as? RPCError, error.code == .upstreamUnavailable, let first = error.message.first {
            return first.uppercased() + error.message.dropFirst()
        }
        return "The sync stopped: \(PublicResponse.describe(error).message)"
    }

    private func progress(_ update: ProgressUpdate, _ what: String) {
        state.withLock { ($0.done, $0.total, $0.summary) = (update.done, update.total, "\(what): \(update.message)") }
    }

    private func finish(_ summary: String, completed: Bool) {
        state.withLock { state in
            state.running = false
            state.finished = true
            state.summary = summary
            if completed, state.total > 0 { state.done = state.total }
        }
    }
}
