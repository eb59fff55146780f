import Logging
import Messaging
import RnmAPI
import ServiceLifecycle
import ServiceRuntime
import Synchronization

/// What the services say of their data (`<prefix>.changes`, ``DataVersion``), asked through the
/// Gateway every half `RNM_HTTP_CACHE_MS`, each service on its own. The micro-cache repeats an
/// answer past `RNM_HTTP_CACHE_MS` while its service's data is still the version it was kept
/// at, confirmed by a call that left within the last `RNM_HTTP_CACHE_MS`, and the answer
/// younger than the service's max age: the rule of the service's own reply cache, seen from
/// here no later than `RNM_HTTP_CACHE_MS` after a change. Without such a confirmation (the
/// Gateway or the service away, slow or older than the method) every kept answer lives
/// `RNM_HTTP_CACHE_MS` from when it was kept, as before.
final class DataVersions: Service, Sendable {
    /// A service's data as it was when an answer was kept.
    struct Seen: Sendable, Equatable {
        fileprivate let watched: Watched
        /// This process's number for the version (versions are compared, never read).
        let token: Int
        /// The service's max age, in seconds.
        let maxAge: Double

        static func == (lhs: Seen, rhs: Seen) -> Bool {
            lhs.watched === rhs.watched && lhs.token == rhs.token && lhs.maxAge == rhs.maxAge
        }
    }

    /// One service's last answer, written by its poll, read by every hit past the TTL.
    fileprivate final class Watched: Sendable {
        let method: RPCMethod<NoParams, DataVersion>
        /// The last version and the number it was given (0: none known), for the poll and for
        /// ``DataVersions/current(_:now:)``; ``token`` is the same number for the hits' reads.
        let last = Mutex<(version: DataVersion?, token: Int)>((nil, 0))
        let token = Atomic<Int>(0)
        /// When the call that last confirmed the version left, in nanoseconds after ``DataVersions/origin``.
        let confirmedAt = Atomic<Int64>(.min)

        init(_ method: RPCMethod<NoParams, DataVersion>) { self.method = method }
    }

    /// The services that answer `<prefix>.changes`: the calls the poll may have in flight at once.
    static let services = ServiceName.allCases.filter { RPCMethods.changes(of: $0) != nil }
    /// Below this TTL no version is asked: asked every half TTL, a shorter one would cost the
    /// Gateway and the services more calls than the answers it keeps would save.
    static let minimumTTL = Duration.milliseconds(200)
    /// How long a service that is away (or does not know the method) is left before it is asked
    /// again, doubled for each call that finds it still away, up to ``maxPause``: the Gateway logs
    /// each request it cannot forward.
    static let pause = Duration.seconds(5)
    static let maxPause = Duration.seconds(60)

    /// How long a confirmation holds (`RNM_HTTP_CACHE_MS`); asked twice as often.
    let ttl: Duration
    private let origin = ContinuousClock.now
    private let watched: [ServiceName: Watched]
    private let ask: @Sendable (RPCMethod<NoParams, DataVersion>) async throws -> DataVersion
    private let logger: Logger

    /// `ask` calls a method through the Gateway, within at most the TTL (a later answer confirms
    /// nothing: a confirmation counts from when its call left).
    init(
        ttl: Duration, services: [ServiceName] = DataVersions.services, logger: Logger,
        ask: @escaping @Sendable (RPCMethod<NoParams, DataVersion>) async throws -> DataVersion
    ) {
        self.ttl = ttl
        self.logger = logger
        self.ask = ask
        self.watched = Dictionary(
            uniqueKeysWithValues: services.compactMap { service in
                RPCMethods.changes(of: service).map { (service, Watched($0)) }
            })
    }

    /// The data of `service` as last confirmed, when that was within the TTL.
    func current(_ service: ServiceName, now: ContinuousClock.Instant = .now) -> Seen? {
        guard let watched = watched[service], confirmed(watched, now: now) else { return nil }
        let (version, token) = watched.last.withLock { ($0.version, $0.token) }
        guard let version, token != 0 else { return nil }
        return Seen(watched: watched, token: token, maxAge: version.maxAge)
    }

    /// Whether the data `seen` is still the service's, confirmed within the TTL.
    func holds(_ seen: Seen, now: ContinuousClock.Instant) -> Bool {
        // The confirmation first, then the token: ``record(_:of:now:)`` stores them the other way
        // round, so a confirmation read here is never newer than the token read after it. Read
        // token first, an old token and the confirmation of the version after it could pass
        // together: an answer of the old data repeated after its last confirmation ran out.
        let isConfirmed = confirmed(seen.watched, now: now)
        return seen.watched.token.load(ordering: .acquiring) == seen.token && isConfirmed
    }

    private func confirmed(_ watched: Watched, now: ContinuousClock.Instant) -> Bool {
        let at = watched.confirmedAt.load(ordering: .acquiring)
        return at != .min && Self.nanoseconds(now - origin) - at < Self.nanoseconds(ttl)
    }

    /// Records `version` of `service`, asked at `now` (the poll; tests).
    func record(_ version: DataVersion, of service: ServiceName, now: ContinuousClock.Instant = .now) {
        guard let watched = watched[service] else { return }
        let token = watched.last.withLock { last -> Int in
            if last.version != version { last = (version, last.token &+ 1 == 0 ? 1 : last.token &+ 1) }
            return last.token
        }
        watched.token.store(token, ordering: .releasing)
        watched.confirmedAt.store(Self.nanoseconds(now - origin), ordering: .releasing)
    }

    func run() async throws {
        // A service that returns ends the group: with nothing to ask, it waits for the end.
        guard ttl >= Self.minimumTTL, !watched.isEmpty else {
            try? await gracefulShutdown()
            return
        }
        // Each service on its own, so that one slow or away does not hold the other's back.
        try? await cancelWhenGracefulShutdown { [self] in
            try await withThrowingDiscardingTaskGroup { group in
                for (service, watched) in watched {
                    group.addTask { try await self.poll(service, watched) }
                }
            }
        }
    }

    /// Asks `service` every half TTL, counted from when each call left (so that a confirmation
    /// is renewed before the last one runs out), until cancelled.
    private func poll(_ service: ServiceName, _ watched: Watched) async throws {
        let interval = ttl / 2
        var pause: Duration?
        while true {
            let asked = ContinuousClock.now
            var next = asked + interval
            do {
                let version = try await ask(watched.method)
                record(version, of: service, now: asked)
                if pause != nil { logger.debug("data version known again", metadata: ["service": "\(service)"]) }
                pause = nil
                // Nothing of it is kept past the TTL (always asked first): a new start is enough to see.
                if version.maxAge <= 0 { next = asked + Self.pause }
            } catch is CancellationError {
                return
            } catch let error as RPCError where error.code == .serviceUnavailable || error.code == .methodNotFound {
                if pause == nil {
                    logger.debug("data version unknown", metadata: ["service": "\(service)", "error": "\(error)"])
                }
                let wait = min(pause.map { $0 * 2 } ?? Self.pause, Self.maxPause)
                pause = wait
                next = asked + wait
            } catch {
                // Slow or overloaded: asked again at the next turn; kept answers live the TTL meanwhile.
            }
            try await Task.sleep(until: next, clock: .continuous)
        }
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
