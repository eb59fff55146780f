import Logging
import Tracing
import W3CTraceContext

/// The trace id of the request being served: one id through every hop (the HTTP front, the
/// Gateway, a service), so that one request's log lines can be found in every process.
///
/// Within a process it is a task-local (a `ServiceContext` value, as swift-distributed-tracing
/// carries context); between processes it travels in the frame's `trace` member
/// (docs/PROTOCOL.md §3). Every log line written while it is set carries it as `trace-id`.
public enum RequestTrace {
    private enum Key: ServiceContextKey {
        typealias Value = String
        static var nameOverride: String? { "trace-id" }
    }

    /// The trace id of the current task's request, if it has one.
    public static var current: String? { ServiceContext.current?[Key.self] }

    /// Runs `body` with `traceID` as the current trace id (as it is when `traceID` is nil).
    public static func with<T>(
        _ traceID: String?, _ body: () async throws -> T
    ) async rethrows -> T {
        guard let traceID else { return try await body() }
        var context = ServiceContext.current ?? .topLevel
        context[Key.self] = traceID
        return try await ServiceContext.withValue(context, operation: body)
    }

    /// Puts `trace-id` on every line logged within a traced request (set as the logging
    /// system's metadata provider).
    public static let metadataProvider = Logger.MetadataProvider {
        guard let id = current else { return [:] }
        return ["trace-id": .string(id)]
    }

    /// A new random trace id (W3C: 16 random bytes, as 32 lowercase hex digits).
    public static func newID() -> String { TraceID.random().description }

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
        let span = SpanID.random()
        if let traceparent, let caller = try? TraceContext(traceParentHeaderValue: traceparent) {
            let context = TraceContext(traceID: caller.traceID, spanID: span, flags: caller.flags, state: caller.state)
            return (caller.traceID.description, context.traceParentHeaderValue)
        }
        let context = TraceContext(traceID: .random(), spanID: span, flags: [], state: TraceState())
        return (context.traceID.description, context.traceParentHeaderValue)
    }
}
