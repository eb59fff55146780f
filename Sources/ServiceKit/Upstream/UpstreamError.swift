import Foundation
import Messaging
import RnmAPI

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
    /// 429 or 503 with `Retry-After`: the upstream asked not to be asked for that many seconds.
    case throttled(status: Int, retryAfterSeconds: Double)
    /// Not asked: the upstream is failing (``UpstreamHealth``), and a probe in the background
    /// finds out when it is back. `reason` is the failure that started it.
    case failing(since: Date, reason: String, nextProbe: Date?)
    /// Not asked: the upstream asked to wait (`Retry-After`) until then.
    case rateLimited(until: Date)
    /// Not asked: every connection rnm keeps to the upstream stayed in use for the wait
    /// (`RNM_UPSTREAM_MAX_CONNECTIONS`); says nothing of the upstream's health.
    case busy(connections: Int, waitedMilliseconds: Int)
    /// Abandoned: every request waiting for it was given up on by its client (`rpc.cancel`).
    /// Says nothing of the upstream's health.
    case cancelled

    public var description: String {
        switch self {
        case .unreachable(let reason): "upstream unreachable: \(reason)"
        case .timedOut(let milliseconds): "upstream did not answer within \(milliseconds) ms"
        case .status(let code): "upstream answered HTTP \(code)"
        case .badPayload(let reason): "upstream answered something unusable: \(reason)"
        case .redirected(let target): "upstream redirected to another host (\(target)); not followed"
        case .tooLarge(let limit): "upstream answer is larger than \(limit) bytes (RNM_UPSTREAM_MAX_BYTES); abandoned"
        case .throttled(let status, let seconds):
            "upstream answered HTTP \(status) with Retry-After: \(Self.seconds(seconds))"
        case .failing(let since, let reason, let probe):
            "upstream failing since \(since.rfc3339): \(reason)"
                + (probe.map { "; next try in \(Self.seconds($0.timeIntervalSinceNow))" }
                    ?? "; checking whether it is back")
        case .rateLimited(let until):
            """
            upstream asked rnm to wait until \(until.rfc3339) (Retry-After); next try in \
            \(Self.seconds(until.timeIntervalSinceNow))
            """
        case .busy(let connections, let milliseconds):
            """
            all \(connections) connections to the upstream stayed busy for \(milliseconds) ms \
            (RNM_UPSTREAM_MAX_CONNECTIONS); not asked
            """
        case .cancelled: "upstream request abandoned: nobody waits for it any more"
        }
    }

    /// Whether this failure says the upstream is unreachable or unwell, so that it is not
    /// asked again by every request (connect errors, timeouts, 5xx, 429, a body that is not the
    /// API's). A 4xx, a redirect or an oversized body concerns one request only.
    public var tripsCircuit: Bool {
        switch self {
        case .unreachable, .timedOut, .badPayload, .throttled: true
        case .status(let code): code >= 500 || code == 429
        case .redirected, .tooLarge, .failing, .rateLimited, .busy, .cancelled: false
        }
    }

    /// `2 s`, `0.3 s`: whole seconds from 1 s on.
    /// The description, saying the wait rnm applies where it is shorter than a `Retry-After`
    /// asked (an upstream may ask for 10^9 s; rnm waits `RNM_UPSTREAM_RETRY_AFTER_MAX_MS`).
    func description(waiting wait: Double) -> String {
        guard case .throttled(let status, let seconds) = self, wait < seconds else { return description }
        return """
            upstream answered HTTP \(status) with Retry-After: \(Self.seconds(seconds)); \
            rnm waits \(Self.seconds(wait)) (RNM_UPSTREAM_RETRY_AFTER_MAX_MS)
            """
    }

    static func seconds(_ value: Double) -> String {
        let value = max(0, value)
        if value >= 1 { return "\(Int(value.rounded())) s" }
        return "0.\(Int((value * 10).rounded(.up))) s"
    }

    /// The HTTP status, when there was one.
    public var httpStatus: Int? {
        switch self {
        case .status(let code), .throttled(let code, _): code
        default: nil
        }
    }

    /// A sync that could not fetch `what`: the previous mirror and whatever is cached stay in
    /// force (and are still served), so the answer says so rather than "nothing is cached".
    public func syncStopped(at what: String, service: String) -> RPCError {
        RPCError(
            .upstreamUnavailable, "the sync could not fetch \(what): \(self); \(Self.mirrorStays)", service: service,
            upstreamStatus: httpStatus)
    }

    /// What every failed sync says of the mirror.
    public static let mirrorStays = "the previous mirror stays in force, try again"
}
