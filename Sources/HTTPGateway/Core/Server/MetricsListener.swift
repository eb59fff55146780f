import Hummingbird
import Logging
import ServiceLifecycle
import ServiceRuntime

/// `GET /metrics` on an address of its own (`RNM_HTTP_METRICS_ADDRESS`): in a cluster the public
/// port faces every client, and the metrics (every process's counters, not a public API) are
/// for Prometheus only, on a port a `NetworkPolicy` can keep to it. The probes (`/livez`,
/// `/readyz`) answer here too, outside the public port's connection caps: a flood that fills
/// `RNM_HTTP_MAX_CONNECTIONS` must not make the kubelet restart the front.
struct MetricsListener: Service {
    let application: Application<RouterResponder<BasicRequestContext>>
    let address: String

    static func make(
        address: (host: String, port: Int), scrape: SharedScrape, probes: Probes, logger: Logger,
        onListening: (@Sendable (Int) async -> Void)?
    ) -> MetricsListener {
        let router = Router()
        PublicAPIRoutes.addMetrics(to: router, scrape: scrape)
        router.get(RouterPath(PublicAPIRoutes.livenessPath)) { _, _ in probes.liveness() }
        router.get(RouterPath(PublicAPIRoutes.readinessPath)) { _, _ in await probes.readiness() }
        let application = Application(
            router: router,
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: nil),
            onServerRunning: { channel in
                logger.info("metrics listening", metadata: ["address": "\(channel.localAddress?.description ?? "?")"])
                await onListening?(channel.localAddress?.port ?? address.port)
            },
            logger: logger)
        return MetricsListener(application: application, address: "\(address.host):\(address.port)")
    }

    func run() async throws {
        do {
            try await application.run()
        } catch {
            throw ListenError(error, address: address, setting: .httpMetricsAddress)
                ?? error
        }
    }
}
