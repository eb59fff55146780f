import CoreMetrics

/// One metric of rnm: its Prometheus name, its type, what it means and its labels. Every
/// metric is one of ``RnmMetrics/all``; the recording code makes its instruments from these,
/// the exposition takes their help text from them, and the table in docs/OPERATIONS.md is checked against
/// them.
public struct MetricDefinition: Sendable, Hashable {
    /// The Prometheus type.
    public enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    public let name: String
    public let kind: Kind
    /// The `# HELP` text: what one sample means.
    public let help: String
    /// The label names, in the order the recording code gives their values.
    public let labels: [String]

    public init(_ name: String, _ kind: Kind, labels: [String] = [], _ help: String) {
        self.name = name
        self.kind = kind
        self.help = help
        self.labels = labels
    }

    /// The labels paired with `values` (one per label, in order).
    func dimensions(_ values: [String]) -> [(String, String)] {
        precondition(values.count == labels.count, "\(name) takes \(labels.count) label values")
        return Array(zip(labels, values))
    }

    /// A counter of this metric with the label `values`, made by `instruments`.
    public func counter(_ values: String..., in instruments: Instruments) -> Counter {
        Counter(label: name, dimensions: dimensions(values), factory: instruments.factory)
    }

    /// A gauge of this metric with the label `values`.
    public func gauge(_ values: String..., in instruments: Instruments) -> Gauge {
        Gauge(label: name, dimensions: dimensions(values), factory: instruments.factory)
    }

    /// A duration histogram (in seconds) of this metric with the label `values`.
    public func timer(_ values: String..., in instruments: Instruments) -> Timer {
        Timer(label: name, dimensions: dimensions(values), factory: instruments.factory)
    }
}

extension Timer {
    /// Records `elapsed`, to the nanosecond.
    public func record(_ elapsed: Duration) {
        recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
    }
}
