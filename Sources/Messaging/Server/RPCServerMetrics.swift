import CoreMetrics
import NIOCore
import Synchronization
import Telemetry

/// An ``RPCServer``'s metrics: requests by method and outcome with their latency, requests in
/// flight, connections, and what its limits refused. The instruments of each method the
/// handler answers are made once, up front: recording a request costs a dictionary look-up,
/// an atomic add and a histogram's lock. A method name the handler does not know is counted
/// as `other` (names come from clients: they must not make series without end).
final class RPCServerMetrics: Sendable {
    /// One method's instruments.
    final class Method: Sendable {
        let name: String
        let ok: Counter
        let duration: Timer
        /// Its error outcomes, made as they first happen.
        private let errors = Mutex<[RPCError.Code: Counter]>([:])
        private let instruments: Instruments

        init(_ name: String, instruments: Instruments) {
            self.name = name
            self.instruments = instruments
            ok = RnmMetrics.rpcRequests.counter(name, "ok", in: instruments)
            duration = RnmMetrics.rpcRequestDuration.timer(name, in: instruments)
        }

        func failed(_ code: RPCError.Code) {
            let counter = errors.withLock { errors in
                if let counter = errors[code] { return counter }
                let counter = RnmMetrics.rpcRequests.counter(name, code.name, in: instruments)
                errors[code] = counter
                return counter
            }
            counter.increment()
        }
    }

    let isEnabled: Bool
    private let methods: [String: Method]
    private let other: Method
    /// Requests being served, read into its gauge at each read-out (an integer add per request,
    /// where a gauge's own increment is a compare-and-swap loop on a double).
    private let inFlight = Atomic<Int>(0)
    private let connections = Atomic<Int>(0)
    private let refusals: [Limit: Counter]
    private let instruments: Instruments
    /// Reply-cache hits (`rnm_cache_answers_total{source="reply_cache"}`), made at the first:
    /// a server without a reply cache (the Gateway) shows none.
    private let replyCacheHits = Mutex<Counter?>(nil)

    /// What refused a request, a reply or a connection: named by its setting.
    enum Limit: String, CaseIterable {
        case inFlightPerConnection = "RNM_MAX_IN_FLIGHT_PER_CONNECTION"
        case unreadBytes = "RNM_CONNECTION_BUFFER_BYTES"
        case processUnreadBytes = "RNM_MAX_UNREAD_BYTES"
        case frameBytes = "RNM_MAX_FRAME_BYTES"
        case frameTimeout = "RNM_FRAME_TIMEOUT_MS"
        case connections = "RNM_MAX_CONNECTIONS"
        case draining = "shutting_down"
    }

    init(methods: Set<String>, instruments: Instruments) {
        isEnabled = instruments.isEnabled
        self.instruments = instruments
        self.methods = Dictionary(uniqueKeysWithValues: methods.map { ($0, Method($0, instruments: instruments)) })
        other = Method("other", instruments: instruments)
        let inFlightGauge = RnmMetrics.rpcRequestsInFlight.gauge(in: instruments)
        let connectionsGauge = RnmMetrics.rpcConnections.gauge(in: instruments)
        refusals = Dictionary(
            uniqueKeysWithValues: Limit.allCases.map { ($0, RnmMetrics.refused.counter($0.rawValue, in: instruments)) })
        instruments.onCollect { [weak self] in
            guard let self else { return }
            inFlightGauge.record(inFlight.load(ordering: .relaxed))
            connectionsGauge.record(connections.load(ordering: .relaxed))
        }
    }

    /// The instruments of the method named `name`.
    func method(_ name: String?) -> Method {
        guard isEnabled else { return other }
        return name.flatMap { methods[$0] } ?? other
    }

    /// A request admitted, read at `time`: counted in flight until ``finished(_:started:error:)``.
    func started(at time: NIODeadline) -> NIODeadline {
        guard isEnabled else { return time }
        inFlight.wrappingAdd(1, ordering: .relaxed)
        return time
    }

    /// A request answered (`error` nil: with a result).
    func finished(_ method: Method, started: NIODeadline, error: RPCError.Code?) {
        guard isEnabled else { return }
        inFlight.wrappingSubtract(1, ordering: .relaxed)
        method.duration.recordNanoseconds((NIODeadline.now() - started).nanoseconds)
        if let error { method.failed(error) } else { method.ok.increment() }
    }

    /// A request answered where it was read from the reply cache, with no work.
    func answeredFromReplyCache(_ method: Method, started: NIODeadline) {
        guard isEnabled else { return }
        method.duration.recordNanoseconds((NIODeadline.now() - started).nanoseconds)
        method.ok.increment()
        let hits = replyCacheHits.withLock { hits in
            if let hits { return hits }
            let counter = RnmMetrics.cacheAnswers.counter("reply_cache", in: instruments)
            hits = counter
            return counter
        }
        hits.increment()
    }

    func refused(_ limit: Limit) {
        refusals[limit]?.increment()
    }

    func connectionOpened() { connections.wrappingAdd(1, ordering: .relaxed) }
    func connectionClosed() { connections.wrappingSubtract(1, ordering: .relaxed) }

    /// A frame answered with an error before it was a request (not JSON, not JSON-RPC, a response).
    func malformed(_ code: RPCError.Code) {
        guard isEnabled else { return }
        other.failed(code)
    }

    /// The clock now, when metrics are on (a request's start).
    func now() -> NIODeadline { isEnabled ? .now() : .uptimeNanoseconds(0) }
}
