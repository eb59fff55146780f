import CoreMetrics
import Foundation
import Messaging
import RnmAPI
import Telemetry

extension ServiceName {
    /// The upstream a caching service keeps, as metrics label it.
    public var upstreamName: String {
        switch self {
        case .characters: "rickandmorty"
        case .universities: "hipo"
        case .gateway: "none"
        }
    }
}

extension RPCRouter {
    /// Registers a caching service's metrics method: its counters, with the gauges read at each
    /// scrape (the upstream's state and the mirror, from its health report; its databases'
    /// file sizes, `databases` naming each file).
    public mutating func registerMetrics(
        _ method: RPCMethod<NoParams, MetricsReport>, of service: ServiceName, instruments: Instruments,
        databases: [(name: String, path: String)], health: @escaping @Sendable () async throws -> ServiceHealth
    ) {
        let gauges = ServiceGauges(service: service, instruments: instruments, databases: databases)
        register(method) { _, _ in
            if let report = try? await health() { gauges.update(from: report) }
            gauges.updateFileSizes()
            return MetricsReport(exposition: instruments.exposition())
        }
    }
}

/// The gauges of a caching service that are read, not counted.
struct ServiceGauges: Sendable {
    private let states: [String: Gauge]
    private let mirrorAge: Gauge
    private let mirrorComplete: Gauge
    private let files: [(path: String, gauge: Gauge)]

    init(service: ServiceName, instruments: Instruments, databases: [(name: String, path: String)]) {
        let upstream = service.upstreamName
        states = Dictionary(
            uniqueKeysWithValues: ["ok", "failing", "rate_limited"].map {
                ($0, RnmMetrics.upstreamState.gauge(upstream, $0, in: instruments))
            })
        mirrorAge = RnmMetrics.mirrorAge.gauge(service.rawValue, in: instruments)
        mirrorComplete = RnmMetrics.mirrorComplete.gauge(service.rawValue, in: instruments)
        files = databases.flatMap { database in
            [
                (database.path, RnmMetrics.databaseBytes.gauge(database.name, "main", in: instruments)),
                (database.path + "-wal", RnmMetrics.databaseBytes.gauge(database.name, "wal", in: instruments)),
            ]
        }
    }

    func update(from health: ServiceHealth) {
        let state = (health.upstream.state ?? "ok").replacingOccurrences(of: "-", with: "_")
        for (name, gauge) in states { gauge.record(name == state ? 1 : 0) }
        let mirror = health.mirror
        mirrorComplete.record(mirror?.complete == true ? 1 : 0)
        let completed = mirror?.completedAt.flatMap { Date(rfc3339: $0) }
        mirrorAge.record(completed.map { max(0, Date().timeIntervalSince($0)) } ?? -1)
    }

    func updateFileSizes() {
        for (path, gauge) in files {
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            gauge.record(size)
        }
    }
}
