/// Prometheus's text format (0.0.4), read by its rules: `# HELP` and `# TYPE` at most once per
/// metric and before its samples, every sample `name{label="value",…} number`, names and
/// label names of the allowed characters, label values quoted with `\\`, `\"` and `\n`
/// escapes. Tests read what `GET /metrics` and `rnmctl metrics` print with it.
public struct Exposition: Sendable {
    public struct Sample: Sendable {
        public var name: String
        public var labels: [String: String]
        public var value: Double

        /// Named `name`, with `labels` among its labels.
        func matches(_ name: String, _ labels: [String: String]) -> Bool {
            self.name == name && labels.allSatisfy { self.labels[$0.key] == $0.value }
        }
    }

    public private(set) var samples: [Sample] = []
    public private(set) var types: [String: String] = [:]
    public private(set) var helps: [String: String] = [:]

    /// Reads `text`.
    /// - Throws: ``ExpositionError`` naming the first line that breaks a rule.
    public init(_ text: String) throws {
        var seenSamples: Set<String> = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            func fail(_ why: String) -> ExpositionError {
                ExpositionError(line: index + 1, text: String(line), why: why)
            }
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                let words = line.split(separator: " ", maxSplits: 3)
                guard words.count >= 3, words[1] == "HELP" || words[1] == "TYPE" else { continue }
                let name = String(words[2])
                guard Self.isName(name) else { throw fail("bad metric name") }
                if words[1] == "TYPE" {
                    guard types[name] == nil else { throw fail("a second TYPE for \(name)") }
                    guard !seenSamples.contains(name) else { throw fail("TYPE after samples of \(name)") }
                    let type = words.count > 3 ? String(words[3]) : ""
                    guard ["counter", "gauge", "histogram", "summary", "untyped"].contains(type) else {
                        throw fail("unknown type \(type)")
                    }
                    types[name] = type
                } else {
                    guard helps[name] == nil else { throw fail("a second HELP for \(name)") }
                    helps[name] = words.count > 3 ? String(words[3]) : ""
                }
                continue
            }
            guard let sample = Self.sample(line) else { throw fail("not a sample line") }
            seenSamples.insert(sample.name)
            for suffix in ["_bucket", "_sum", "_count"] where sample.name.hasSuffix(suffix) {
                seenSamples.insert(String(sample.name.dropLast(suffix.count)))
            }
            samples.append(sample)
        }
    }

    /// The value of the sample `name` whose labels include `labels` (0 when there is none:
    /// a counter not made yet counts nothing).
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double {
        samples.first { $0.matches(name, labels) }?.value ?? 0
    }

    /// The sum of every sample `name` with `labels` among its labels (a counter over all the
    /// values of the labels not given, e.g. every outcome of a method).
    public func total(_ name: String, _ labels: [String: String] = [:]) -> Double {
        samples.filter { $0.matches(name, labels) }.reduce(0) { $0 + $1.value }
    }

    /// A caching service's `rnm_cache_answers_total` by source, those above 0, the reply cache's
    /// left out: how the cache rule answered its reads.
    public var cacheAnswers: [String: Int] {
        samples.reduce(into: [:]) { counts, sample in
            guard sample.name == "rnm_cache_answers_total", sample.value > 0,
                let source = sample.labels["source"], source != "reply_cache"
            else { return }
            counts[source] = Int(sample.value)
        }
    }

    /// Whether a sample `name` with `labels` is there.
    public func has(_ name: String, _ labels: [String: String] = [:]) -> Bool {
        samples.contains { $0.matches(name, labels) }
    }

    static func isName(_ text: some StringProtocol) -> Bool {
        guard let first = text.first, first.isLetter || first == "_" || first == ":" else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") }
    }

    static func sample(_ line: Substring) -> Sample? {
        var rest = line[...]
        let name = rest.prefix { $0 != "{" && $0 != " " }
        guard isName(name) else { return nil }
        rest = rest.dropFirst(name.count)
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let key = rest.prefix { $0 != "=" }
                guard isName(key), !key.contains(":") else { return nil }
                rest = rest.dropFirst(key.count)
                guard rest.hasPrefix("=\"") else { return nil }
                rest = rest.dropFirst(2)
                var value = ""
                while let character = rest.first, character != "\"" {
                    rest = rest.dropFirst()
                    if character == "\\" {
                        guard let escaped = rest.first, "\\\"n".contains(escaped) else { return nil }
                        value.append(escaped == "n" ? "\n" : escaped)
                        rest = rest.dropFirst()
                    } else {
                        value.append(character)
                    }
                }
                guard rest.first == "\"" else { return nil }
                rest = rest.dropFirst()
                labels[String(key)] = value
                if rest.first == "," { rest = rest.dropFirst() }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " " else { return nil }
        let fields = rest.split(separator: " ")
        guard (1...2).contains(fields.count), let value = Double(fields[0]) ?? Self.special(fields[0]) else {
            return nil
        }
        return Sample(name: String(name), labels: labels, value: value)
    }

    static func special(_ text: Substring) -> Double? {
        switch text {
        case "+Inf": .infinity
        case "-Inf": -.infinity
        case "NaN": .nan
        default: nil
        }
    }
}

/// A line of an exposition that breaks the format's rules.
public struct ExpositionError: Error, CustomStringConvertible {
    public var line: Int
    public var text: String
    public var why: String
    public var description: String { "line \(line): \(why): \(text)" }
}
