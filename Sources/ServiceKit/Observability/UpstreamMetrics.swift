import CoreMetrics
import Telemetry

/// One upstream's requests: `rnm_upstream_requests_total` by outcome, their duration and the
/// bytes received. Made again wherever needed: the same name gives the same series.
public struct UpstreamMetrics: Sendable {
    /// What became of a request.
    public enum Outcome: String, CaseIterable, Sendable {
        case ok, notModified = "not_modified", clientError = "client_error", serverError = "server_error"
        case rateLimited = "rate_limited", timeout, connectError = "connect_error", tooLarge = "too_large"
        case invalid, refused, busy, cancelled
    }

    private let outcomes: [Outcome: Counter]
    private let duration: Timer
    private let bytes: Counter

    /// The metrics of the upstream named `upstream` (`rickandmorty`, `hipo`).
    public init(upstream: String, instruments: Instruments = .disabled) {
        outcomes = Dictionary(
            uniqueKeysWithValues: Outcome.allCases.map {
                ($0, RnmMetrics.upstreamRequests.counter(upstream, $0.rawValue, in: instruments))
            })
        duration = RnmMetrics.upstreamRequestDuration.timer(upstream, in: instruments)
        bytes = RnmMetrics.upstreamResponseBytes.counter(upstream, in: instruments)
    }

    /// A request not sent: the upstream is failing or asked to wait.
    public func refused() { outcomes[.refused]?.increment() }

    /// A request that got an HTTP answer.
    func answered(status: Int, bytes count: Int, after elapsed: Duration) {
        let outcome: Outcome =
            switch status {
            case 304: .notModified
            case 429: .rateLimited
            case 200..<400: .ok
            case 400..<500: .clientError
            default: .serverError
            }
        outcomes[outcome]?.increment()
        bytes.increment(by: count)
        duration.record(elapsed)
    }

    /// A request that got no HTTP answer.
    func failed(_ error: UpstreamError, after elapsed: Duration) {
        let outcome: Outcome =
            switch error {
            case .timedOut: .timeout
            case .unreachable: .connectError
            case .tooLarge: .tooLarge
            case .badPayload, .redirected, .status: .invalid
            case .throttled: .rateLimited
            case .failing, .rateLimited: .refused
            case .busy: .busy
            case .cancelled: .cancelled
            }
        outcomes[outcome]?.increment()
        if outcome != .busy { duration.record(elapsed) }
    }
}
