import Messaging
import RnmAPI
import Telemetry

/// One scrape of the whole system: each process behind the Gateway asked for its metrics (its
/// metrics method of the route table, through the Gateway), merged with the asker's own, each
/// series labelled with its process. A process that cannot be asked (down, or the Gateway
/// itself down) is `rnm_up{process=…} 0`, not a failed scrape. `GET /metrics` and
/// `rnmctl metrics` both print this.
public enum MetricsScrape {
    public typealias Ask = @Sendable (RPCMethod<NoParams, MetricsReport>) async throws -> MetricsReport

    /// `own` first (the HTTP front's), then the Gateway's and each service's, as `ask` gets them.
    public static func collect(own: [MergedExposition.Part] = [], ask: @escaping Ask) async -> String {
        let asked = await withTaskGroup(of: (Int, MergedExposition.Part).self) { group in
            for (index, service) in ServiceName.allCases.enumerated() {
                group.addTask {
                    let report = try? await ask(RPCMethods.metrics(of: service))
                    return (index, MergedExposition.Part(process: service.rawValue, exposition: report?.exposition))
                }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        return MergedExposition.merge(own + asked.keys.sorted().compactMap { asked[$0] })
    }

    /// The Content-Type of the text: Prometheus's text format, version 0.0.4.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"
}
