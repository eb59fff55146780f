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
        let bytes = text.utf8
        return bytes.count == 32
            && bytes.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
            && bytes.contains { $0 != 0x30 }
    }

    /// The trace of an HTTP request: the caller's W3C `traceparent` continued (its trace id
    /// kept, a span id of this hop's own), or a new one when it sent none or an invalid one.
    /// Returns the trace id and the `traceparent` to send back.
    public static func continuing(traceparent: String?) -> (traceID: String, traceparent: String) {
        let span = random.withLock { SpanID.random(using: &$0) }
        if let traceparent, let caller = try? TraceContext(traceParentHeaderValue: traceparent) {
            let context = TraceContext(traceID: caller.traceID, spanID: span, flags: caller.flags, state: caller.state)
            return (caller.traceID.description, context.traceParentHeaderValue)
        }
        let traceID = random.withLock { TraceID.random(using: &$0) }
        let context = TraceContext(traceID: traceID, spanID: span, flags: [], state: TraceState())
        return (context.traceID.description, context.traceParentHeaderValue)
    }
}
