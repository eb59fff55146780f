import Logging
import Synchronization
import W3CTraceContext

/// The trace id of the request being served: one id through every hop (the HTTP front, the
/// Gateway, a service), so that one request's log lines can be found in every process.
///
/// Within a process it is a task-local; between processes it travels in the frame's `trace`
/// member (docs/PROTOCOL.md §3). Every log line written while it is set carries it as
/// `trace-id`. (A `ServiceContext` value, as swift-distributed-tracing carries context, was the
/// first version: a dictionary of `Any` values copied on every request and cast on every log
/// line, for one string, and nothing here exports spans. The plain task-local is cheaper, if
/// within the noise: 44.2k → 45.1k cached answers/s of the HTTP front, medians of 7 rounds.)
public enum RequestTrace {
    @TaskLocal private static var traceID: String?

    /// The trace id of the current task's request, if it has one.
    public static var current: String? { traceID }

    /// Runs `body` with `traceID` as the current trace id (as it is when `traceID` is nil).
    public static func with<T>(
        _ traceID: String?, _ body: () async throws -> T
    ) async rethrows -> T {
        guard let traceID else { return try await body() }
        return try await $traceID.withValue(traceID, operation: body)
    }

    /// Puts `trace-id` on every line logged within a traced request (set as the logging
    /// system's metadata provider).
    public static let metadataProvider = Logger.MetadataProvider {
        guard let id = current else { return [:] }
        return ["trace-id": .string(id)]
    }

    /// A new random trace id (W3C: 16 random bytes, as 32 lowercase hex digits).
    public static func newID() -> String { random.withLock { TraceID.random(using: &$0).description } }

    /// Ids need to be unique, not secret: a fast generator seeded once from the system's, where
    /// the system's own costs a `getrandom` call per id (three per HTTP request, measured at
    /// 10% of the HTTP front's cached answers).
    private static let random = Mutex(SplitMix64(seed: UInt64.random(in: .min ... .max)))

    /// Whether `text` is a W3C trace id: 32 lowercase hex digits, not all zero.
    public static func isValid(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 32 && isHex(text.utf8)
    }

    /// The trace of an HTTP request: the caller's W3C `traceparent` continued (its trace id
    /// kept, a span id of this hop's own), or a new one when it sent none or an invalid one.
    /// Returns the trace id and the `traceparent` to send back.
    public static func continuing(traceparent: String?) -> (traceID: String, traceparent: String) {
        let header = Self.traceparent(continuing: traceparent)
        return (String(header.utf8.dropFirst(3).prefix(32))!, header)
    }

    /// The `traceparent` to send back to a caller that sent `caller` (as ``continuing(traceparent:)``
    /// decides), for a micro-cache hit, which needs no trace id apart. The common shape
    /// (version `00`, flags `00` or `01`) is continued here, with one allocation, and new ones
    /// made the same way: through the library they cost ~5% of a hit's CPU (issue 40). Every
    /// other shape is left to the library (W3CTraceContext), which decides as before.
    public static func traceparent(continuing caller: String?) -> String {
        let (span, high, low) = random.withLock { ($0.next() | 1, $0.next(), $0.next() | 1) }
        if let caller {
            if let continued = continuedFast(caller, span: span) { return continued }
            if let context = try? TraceContext(traceParentHeaderValue: caller) {
                let spanID = random.withLock { SpanID.random(using: &$0) }
                return TraceContext(
                    traceID: context.traceID, spanID: spanID, flags: context.flags, state: context.state
                )
                .traceParentHeaderValue
            }
        }
        return String(unsafeUninitializedCapacity: 55) { text in
            for (offset, byte) in "00-".utf8.enumerated() { text[offset] = byte }
            writeHex(high, into: text, at: 3)
            writeHex(low, into: text, at: 19)
            text[35] = UInt8(ascii: "-")
            writeHex(span, into: text, at: 36)
            for (offset, byte) in "-00".utf8.enumerated() { text[52 + offset] = byte }
            return 55
        }
    }

    /// `caller` continued with `span`, if it has the common shape: `00-` 32 lowercase hex digits
    /// (not all zero) `-` 16 (not all zero) `-00` or `-01`.
    private static func continuedFast(_ caller: String, span: UInt64) -> String? {
        var caller = caller
        return caller.withUTF8 { bytes -> String? in
            guard bytes.count == 55, bytes[0] == 0x30, bytes[1] == 0x30, bytes[2] == 0x2D, bytes[35] == 0x2D,
                bytes[52] == 0x2D, bytes[53] == 0x30, bytes[54] == 0x30 || bytes[54] == 0x31,
                isHex(bytes[3..<35]), isHex(bytes[36..<52])
            else { return nil }
            return String(unsafeUninitializedCapacity: 55) { text in
                for index in 0..<36 { text[index] = bytes[index] }
                writeHex(span, into: text, at: 36)
                for index in 52..<55 { text[index] = bytes[index] }
                return 55
            }
        }
    }

    /// Lowercase hex digits, not all zero: a W3C trace or span id's rule.
    private static func isHex(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) } && bytes.contains { $0 != 0x30 }
    }

    private static func writeHex(_ value: UInt64, into text: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        let digits: StaticString = "0123456789abcdef"
        for index in 0..<16 {
            let nibble = Int((value >> UInt64(60 - 4 * index)) & 0xF)
            text[start + index] = digits.utf8Start[nibble]
        }
    }
}
