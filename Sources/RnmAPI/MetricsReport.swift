/// `gateway.metrics`, `characters.metrics`, `universities.metrics` result: the process's
/// metrics in Prometheus's text format (version 0.0.4), without a `process` label (the
/// merged scrape, `GET /metrics` or `rnmctl metrics`, adds it).
public struct MetricsReport: Codable, Sendable, Equatable {
    public var exposition: String

    public init(exposition: String) {
        self.exposition = exposition
    }
}
