/// Several processes' expositions as one: each series labelled with its `process`, each
/// metric's `# HELP` and `# TYPE` written once (Prometheus's text format allows one of each
/// per metric name), and `rnm_up` saying which processes answered.
public enum MergedExposition {
    /// One process's part of a scrape: its exposition, or nil when it could not be read.
    public struct Part: Sendable {
        public var process: String
        public var exposition: String?

        public init(process: String, exposition: String?) {
            self.process = process
            self.exposition = exposition
        }
    }

    private struct Family {
        var help: String?
        var type: String?
        var samples: [Substring] = []
        var labelled: [String] = []
    }

    /// The parts as one exposition, families in the order first seen, `rnm_up` last.
    public static func merge(_ parts: [Part]) -> String {
        var order: [String] = []
        var families: [String: Family] = [:]
        func family(_ name: String, _ update: (inout Family) -> Void) {
            if families[name] == nil {
                order.append(name)
                families[name] = Family()
            }
            update(&families[name]!)
        }
        for part in parts {
            guard let text = part.exposition else { continue }
            var current = ""
            for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
                if line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") {
                    let words = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
                    guard words.count >= 3 else { continue }
                    current = String(words[2])
                    let rest = words.count > 3 ? String(words[3]) : ""
                    let isHelp = words[1] == "HELP"
                    family(current) { isHelp ? ($0.help = $0.help ?? rest) : ($0.type = $0.type ?? rest) }
                    continue
                }
                guard !line.hasPrefix("#") else { continue }
                let name = String(line.prefix { $0 != "{" && $0 != " " })
                // `x_bucket`, `x_sum`, `x_count` belong to the histogram `x` they follow.
                let owner = name.hasPrefix(current) && !current.isEmpty ? current : name
                family(owner) { $0.labelled.append(labelled(line, process: part.process)) }
            }
        }
        let up = RnmMetrics.up
        var text = ""
        for name in order + [up.name] {
            var entry = families[name] ?? Family()
            if name == up.name {
                entry.labelled += parts.map { "\(up.name){process=\"\($0.process)\"} \($0.exposition == nil ? 0 : 1)" }
            }
            let definition = RnmMetrics.byName[name]
            if let help = entry.help ?? definition?.help, !help.isEmpty { text += "# HELP \(name) \(help)\n" }
            if let type = entry.type ?? definition?.kind.rawValue { text += "# TYPE \(name) \(type)\n" }
            for sample in entry.labelled { text += sample + "\n" }
        }
        return text
    }

    /// A sample line with `process="…"` as its first label.
    static func labelled(_ line: Substring, process: String) -> String {
        let label = "process=\"\(process)\""
        guard let split = line.firstIndex(where: { $0 == "{" || $0 == " " }) else { return String(line) }
        let name = line[..<split]
        if line[split] == " " { return "\(name){\(label)}\(line[split...])" }
        let afterBrace = line[line.index(after: split)...]
        return afterBrace.hasPrefix("}") ? "\(name){\(label)\(afterBrace)" : "\(name){\(label),\(afterBrace)"
    }
}
