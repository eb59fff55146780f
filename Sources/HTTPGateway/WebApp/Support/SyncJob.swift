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
        /// What the upstream itself said when the sync stopped on it (the page shows it as a
        /// detail; the summary says it in words).
        var detail: String?
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
            let (why, detail) = Self.stopped(error)
            finish("\(why)\(done).", completed: false, detail: detail)
        }
    }

    /// Why a sync stopped, as rnmctl says it: an upstream failure in the service's words (what
    /// it could not fetch, and that the previous mirror stays in force), not the API's "nothing
    /// cached", which is false of a mirror; anything else as the API says it. The upstream's
    /// own failure (`the sync could not fetch <what>: <failure>; <mirror>`) is said in a
    /// person's words (``UpstreamTrouble``), its text kept as the detail.
    static func stopped(_ error: any Error) -> (summary: String, detail: String?) {
        guard let error = error as? RPCError, error.code == .upstreamUnavailable, let first = error.message.first
        else { return ("The sync stopped: \(PublicResponse.describe(error).message)", nil) }
        let message = first.uppercased() + error.message.dropFirst()
        guard let service = ServiceName(rawValue: error.service),
            let start = message.firstRange(of: ": upstream ") ?? message.firstRange(of: ": all "),
            let end = message.ranges(of: "; ").last, start.upperBound < end.lowerBound
        else { return (message, nil) }
        let reason = String(message[message.index(start.lowerBound, offsetBy: 2)..<end.lowerBound])
        let words = UpstreamTrouble(reason).sentence(service)
        let sentence = words.prefix(1).lowercased() + words.dropFirst()
        return (String(message[..<start.upperBound]) + sentence + String(message[end.lowerBound...]), reason)
    }

    private func progress(_ update: ProgressUpdate, _ what: String) {
        state.withLock { ($0.done, $0.total, $0.summary) = (update.done, update.total, "\(what): \(update.message)") }
    }

    private func finish(_ summary: String, completed: Bool, detail: String? = nil) {
        state.withLock { state in
            state.running = false
            state.finished = true
            state.summary = summary
            state.detail = detail
            if completed, state.total > 0 { state.done = state.total }
        }
    }
}
