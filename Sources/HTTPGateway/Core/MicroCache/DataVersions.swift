import Logging
import Messaging
import RnmAPI
import ServiceLifecycle
import ServiceRuntime
import Synchronization

/// What the services say of their data (`<prefix>.changes`, ``DataVersion``), asked through the
/// Gateway every half `RNM_HTTP_CACHE_MS`. The micro-cache repeats an answer past
/// `RNM_HTTP_CACHE_MS` while its service's data is still the version it was kept at, confirmed
/// within the last `RNM_HTTP_CACHE_MS`, and the answer younger than the service's max age: the
/// rule of the service's own reply cache, seen from here no later than `RNM_HTTP_CACHE_MS`
/// after a change. Without an answer (the Gateway or the service down, or older than the
/// method) nothing is confirmed, and every kept answer lives `RNM_HTTP_CACHE_MS`, as before.
final class DataVersions: Service, Sendable {
    /// A service's data as it was when an answer was kept.
    struct Seen: Sendable, Equatable {
        let service: ServiceName
        /// This process's number for the version (versions are compared, never read).
        let token: Int
        /// The service's max age, in seconds.
        let maxAge: Double
    }

    /// One service's last answer, written by the poll, read by every hit past the TTL.
    private final class Watched: Sendable {
        let method: RPCMethod<NoParams, DataVersion>
        /// The last version and the number it was given (0: none known).
        let last = Mutex<(version: DataVersion?, token: Int)>((nil, 0))
        let token = Atomic<Int>(0)
        /// When the version was last confirmed, in nanoseconds after ``DataVersions/origin``.
        let confirmedAt = Atomic<Int64>(.min)

        init(_ method: RPCMethod<NoParams, DataVersion>) { self.method = method }
    }

    /// How long a confirmation holds (`RNM_HTTP_CACHE_MS`); asked twice as often.
    let ttl: Duration
    private let origin = ContinuousClock.now
    private let watched: [ServiceName: Watched]
    private let ask: @Sendable (RPCMethod<NoParams, DataVersion>) async throws -> DataVersion
    private let logger: Logger

    /// `ask` calls a method through the Gateway.
    init(
        ttl: Duration, services: [ServiceName] = [.characters, .universities], logger: Logger,
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
        return Seen(service: service, token: token, maxAge: version.maxAge)
    }

    /// Whether the data `seen` is still the service's, confirmed within the TTL.
    func holds(_ seen: Seen, now: ContinuousClock.Instant) -> Bool {
        guard let watched = watched[seen.service] else { return false }
        // The confirmation first, then the token: ``record(_:of:now:)`` stores them the other way
        // round, so a confirmation read here is never newer than the token read after it. Read
        // token first, an old token and the confirmation of the version after it could pass
        // together: an answer of the old data repeated after its last confirmation ran out.
        let isConfirmed = confirmed(watched, now: now)
        return watched.token.load(ordering: .acquiring) == seen.token && isConfirmed
    }

    private func confirmed(_ watched: Watched, now: ContinuousClock.Instant) -> Bool {
        let at = watched.confirmedAt.load(ordering: .acquiring)
        return at != .min && Self.nanoseconds(now - origin) - at < Self.nanoseconds(ttl)
    }

    /// Records `version` of `service`, read at `now` (the poll; tests).
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
        // A service that returns ends the group: with the micro-cache off, it waits for the end.
        guard ttl > .zero, !watched.isEmpty else {
            try? await gracefulShutdown()
            return
        }
        // Half the TTL, so that a confirmation is renewed before the last one runs out.
        let interval = ttl / 2
        try? await cancelWhenGracefulShutdown { [self] in
            // A service that did not answer is asked again after `Self.pause` (its kept answers
            // live the TTL meanwhile): the Gateway logs each request it cannot forward, and
            // twice a second would fill its log while a service is away.
            var pausedUntil: [ServiceName: ContinuousClock.Instant] = [:]
            while true {
                for (service, watched) in watched where pausedUntil[service].map({ $0 <= .now }) ?? true {
                    // Read before the call: a change while it is in flight makes a later version.
                    let asked = ContinuousClock.now
                    do {
                        record(try await ask(watched.method), of: service, now: asked)
                        pausedUntil[service] = nil
                    } catch is CancellationError {
                        return
                    } catch {
                        if pausedUntil[service] == nil {
                            logger.debug(
                                "data version unknown", metadata: ["service": "\(service)", "error": "\(error)"])
                        }
                        pausedUntil[service] = .now + max(interval, Self.pause)
                    }
                }
                try await Task.sleep(for: interval)
            }
        }
    }

    /// How long a service that did not answer is left before it is asked again.
    static let pause = Duration.seconds(5)

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
