import Logging
import ServiceLifecycle
import Synchronization

/// Whether the HTTP front is draining: told to stop (SIGTERM), it still answers, but says it is
/// not ready (`GET /readyz` 503) and closes each connection after its answer
/// (`Connection: close`, ``KeepAliveHandler``), so that clients go to another copy while a
/// load balancer takes this one out (`RNM_HTTP_DRAIN_MS`).
final class Drain: Sendable {
    private let draining = Atomic(false)

    var isDraining: Bool { draining.load(ordering: .relaxed) }

    func begin() { draining.store(true, ordering: .relaxed) }
}

/// The drain as a step of the shutdown: the last service of the HTTP front's group, so the
/// first told to stop. It marks the front draining and waits `duration` before returning, and
/// only then is the server told to stop listening and finish what it holds (the services of a
/// `ServiceGroup` stop one after another, the last first).
struct DrainService: Service {
    let drain: Drain
    let duration: Duration
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        drain.begin()
        guard duration > .zero else { return }
        logger.info("draining: still answering, not ready", metadata: ["for": "\(duration)"])
        // Cancelled (the group's graceful-shutdown deadline): stop draining at once. A second
        // SIGTERM does not cut it short (ServiceRunner names no cancellation signal).
        try? await Task.sleep(for: duration)
    }
}
