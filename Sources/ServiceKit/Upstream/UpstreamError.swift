/// Why an upstream API could not be used. Every case is a failure the services fall back on
/// their cache for.
public enum UpstreamError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No connection (refused, DNS, network down).
    case unreachable(String)
    /// No complete answer within the timeout.
    case timedOut(milliseconds: Int)
    /// An HTTP status that is not an answer (5xx, 429, an unexpected 4xx).
    case status(Int)
    /// A body that is not the JSON expected (HTML, garbage, truncated, wrong shape).
    case badPayload(String)
    /// A redirect to another scheme, host or port: not followed, and nothing cached from it.
    case redirected(to: String)
    /// A body larger than the limit (`RNM_UPSTREAM_MAX_BYTES`); the transfer was abandoned.
    case tooLarge(limit: Int)

    public var description: String {
        switch self {
        case .unreachable(let reason): "upstream unreachable: \(reason)"
        case .timedOut(let milliseconds): "upstream did not answer within \(milliseconds) ms"
        case .status(let code): "upstream answered HTTP \(code)"
        case .badPayload(let reason): "upstream answered something unusable: \(reason)"
        case .redirected(let target): "upstream redirected to another host (\(target)); not followed"
        case .tooLarge(let limit): "upstream answer is larger than \(limit) bytes (RNM_UPSTREAM_MAX_BYTES); abandoned"
        }
    }

    /// The HTTP status, when there was one.
    public var httpStatus: Int? {
        if case .status(let code) = self { code } else { nil }
    }
}
