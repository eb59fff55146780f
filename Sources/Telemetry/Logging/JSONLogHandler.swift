#if canImport(Glibc)
    import Glibc
#endif
import Logging

/// Writes each log line to stderr as one JSON object (`RNM_LOG_FORMAT=json`), for machines:
/// `{"time":"2026-11-25T16:00:00.123Z","level":"info","process":"rnm.gateway","message":"…",
/// "metadata":{"trace-id":"…"}}`.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String

    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadata
        if let given = event.metadata { all.merge(given) { $1 } }
        let line = Self.line(
            label: label, level: event.level, message: event.message.description, metadata: all,
            provider: metadataProvider)
        // One write per line: lines of concurrent tasks never interleave.
        var bytes = Array((line + "\n").utf8)
        bytes.withUnsafeMutableBytes { _ = write(2, $0.baseAddress, $0.count) }
    }

    /// One log line's JSON object (without the newline): `metadata`, then what `provider`
    /// gives now (the trace id), then nothing else.
    public static func line(
        label: String, level: Logger.Level, message: String, metadata: Logger.Metadata,
        provider: Logger.MetadataProvider?
    ) -> String {
        var all = metadata
        if let provided = provider?.get() { all.merge(provided) { old, _ in old } }
        var line = "{\"time\":\(quoted(now())),\"level\":\"\(level.rawValue)\""
        line += ",\"process\":\(quoted(label)),\"message\":\(quoted(message))"
        if !all.isEmpty { line += ",\"metadata\":" + object(all) }
        return line + "}"
    }

    /// The metadata as a JSON object (lists as arrays, nested metadata as objects).
    static func object(_ metadata: Logger.Metadata) -> String {
        "{" + metadata.sorted { $0.key < $1.key }.map { quoted($0.key) + ":" + value($0.value) }.joined(separator: ",")
            + "}"
    }

    private static func value(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): quoted(text)
        case .stringConvertible(let item): quoted(item.description)
        case .array(let items): "[" + items.map(Self.value).joined(separator: ",") + "]"
        case .dictionary(let nested): object(nested)
        }
    }

    /// `text` as a JSON string.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Now, in RFC 3339 with milliseconds, UTC.
    static func now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var parts = tm()
        var seconds = spec.tv_sec
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = Int(spec.tv_nsec / 1_000_000)
        let fraction = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(fraction)Z"
    }
}
