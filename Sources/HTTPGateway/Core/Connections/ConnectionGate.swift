import CoreMetrics
import ServiceRuntime
import Synchronization
import Telemetry

/// Open HTTP connections, in all and per client address, within their caps (nginx's
/// `worker_connections` and `limit_conn` by address): one client cannot take every slot of
/// the Gateway link with a few hundred connections, and a flood cannot take every file
/// descriptor. Shared by every connection of the server.
final class ConnectionGate: Sendable {
    let maxConnections: Int
    let maxPerClient: Int
    /// Peers that are proxies for many clients: only the overall cap counts their connections.
    let proxies: TrustedProxies
    /// Told of each connection admitted (memory is trimmed once they have stopped coming).
    let trim: IdleTrim?
    private let state = Mutex(State())
    /// Connections refused, by the cap that refused them.
    private let refusedOverAll: Counter
    private let refusedPerClient: Counter

    private struct State {
        var total = 0
        var byAddress: [String: Int] = [:]
    }

    init(
        maxConnections: Int, maxPerClient: Int, proxies: TrustedProxies = .none, trim: IdleTrim? = nil,
        instruments: Instruments = .disabled
    ) {
        self.proxies = proxies
        refusedOverAll = RnmMetrics.refused.counter("RNM_HTTP_MAX_CONNECTIONS", in: instruments)
        refusedPerClient = RnmMetrics.refused.counter("RNM_HTTP_MAX_CONNECTIONS_PER_CLIENT", in: instruments)
        self.maxConnections = maxConnections
        self.maxPerClient = maxPerClient
        self.trim = trim
    }

    /// Connections open now.
    var openConnections: Int { state.withLock { $0.total } }

    /// Counts a new connection from `address` in, or says why not (nothing counted then).
    func admit(_ address: String) -> String? {
        let refusal = state.withLock { state -> String? in
            if state.total >= maxConnections {
                refusedOverAll.increment()
                return "rnm has \(maxConnections) connections open (RNM_HTTP_MAX_CONNECTIONS); retry shortly"
            }
            if state.byAddress[address, default: 0] >= maxPerClient, !proxies.trusts(address) {
                refusedPerClient.increment()
                return """
                    your address has \(maxPerClient) connections open to rnm \
                    (RNM_HTTP_MAX_CONNECTIONS_PER_CLIENT); reuse them (keep-alive) or retry shortly
                    """
            }
            state.total += 1
            state.byAddress[address, default: 0] += 1
            return nil
        }
        if refusal == nil { trim?.connectionOpened() }
        return refusal
    }

    /// Counts an admitted connection out.
    func release(_ address: String) {
        state.withLock { state in
            state.total -= 1
            let left = state.byAddress[address, default: 1] - 1
            state.byAddress[address] = left > 0 ? left : nil
        }
        trim?.connectionClosed()
    }
}
