import CoreMetrics
import Prometheus
import Synchronization

/// One process's metrics: where its instruments are made (swift-metrics' API over a
/// Prometheus registry of its own) and how they are read out. Each app is built with one, so
/// that tests running several apps in one process read each app's metrics apart.
public final class Instruments: Sendable {
    /// Makes the instruments (``MetricDefinition/counter(_:in:)`` and the others).
    public let factory: any MetricsFactory
    private let registry: PrometheusCollectorRegistry?
    /// Run before each read-out: they set the gauges that are read, not counted (memory, file
    /// sizes, the upstream's state).
    private let collectors = Mutex<[@Sendable () -> Void]>([])

    /// Metrics on, in a registry of their own, with the process's own (memory, CPU, files).
    public convenience init() {
        self.init(enabled: true)
    }

    /// With `enabled` false, every instrument does nothing and the read-out is empty
    /// (`RNM_METRICS=off`, for measuring what metrics cost).
    public init(enabled: Bool) {
        if enabled {
            let registry = PrometheusCollectorRegistry()
            self.registry = registry
            self.factory = TableMetricsFactory(registry: registry)
            ProcessStatistics.register(in: self)
        } else {
            self.registry = nil
            self.factory = NOOPMetricsHandler.instance
        }
    }

    /// Instruments that record nothing.
    public static let disabled = Instruments(enabled: false)

    /// Whether instruments record anything.
    public var isEnabled: Bool { registry != nil }

    /// Runs `collect` before each read-out (to set gauges from state that is read, not counted).
    public func onCollect(_ collect: @escaping @Sendable () -> Void) {
        guard isEnabled else { return }
        collectors.withLock { $0.append(collect) }
    }

    /// The metrics now, in Prometheus's text format (version 0.0.4); empty when disabled.
    public func exposition() -> String {
        guard let registry else { return "" }
        for collect in collectors.withLock({ $0 }) { collect() }
        return registry.emitToString()
    }
}
