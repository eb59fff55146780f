import CoreMetrics
import Synchronization
import Telemetry

/// How much GraphQL work the HTTPGateway takes on at once: requests worked on in all
/// (`RNM_GRAPHQL_MAX_RUNNING`), per client address (`RNM_GRAPHQL_MAX_RUNNING_PER_CLIENT`), and
/// records held by every query in flight together (`RNM_GRAPHQL_MAX_RECORDS_IN_FLIGHT`, what
/// their answers' memory grows with). Past any of them a request is refused at once (503 with
/// `Retry-After`), never queued: a queue would hold memory and answer late, and the client
/// knows best whether to try again. The oldest query running may always take its records (up
/// to its own `RNM_GRAPHQL_MAX_RECORDS`): queries taking the budget a page at a time would
/// otherwise all meet it half way and all be refused (measured: 4 heavy queries at once, all
/// 503), so one always finishes.
final class GraphQLAdmission: Sendable {
    let limits: GraphQLLimits
    private let state = Mutex(State())
    private let refusedRunning: Counter
    private let refusedPerClient: Counter
    private let refusedRecords: Counter

    private struct State {
        var running = 0
        var byClient: [String: Int] = [:]
        var records = 0
        /// The running requests, oldest first.
        var order: [UInt64] = []
        var nextTicket: UInt64 = 0
    }

    init(limits: GraphQLLimits, instruments: Instruments = .disabled) {
        self.limits = limits
        refusedRunning = RnmMetrics.refused.counter("RNM_GRAPHQL_MAX_RUNNING", in: instruments)
        refusedPerClient = RnmMetrics.refused.counter("RNM_GRAPHQL_MAX_RUNNING_PER_CLIENT", in: instruments)
        refusedRecords = RnmMetrics.refused.counter("RNM_GRAPHQL_MAX_RECORDS_IN_FLIGHT", in: instruments)
    }

    /// Why a request cannot be taken on now.
    enum Refusal: Error, Equatable {
        case busy
        case clientBusy
        case records

        /// The words a person reads, naming the setting.
        func message(_ limits: GraphQLLimits) -> String {
            switch self {
            case .busy:
                "rnm is working on \(limits.maxRunning) GraphQL requests (RNM_GRAPHQL_MAX_RUNNING); retry shortly"
            case .clientBusy:
                """
                your address has \(limits.maxRunningPerClient) GraphQL requests running \
                (RNM_GRAPHQL_MAX_RUNNING_PER_CLIENT); wait for their answers, then retry
                """
            case .records:
                """
                the GraphQL queries in flight hold \(limits.maxRecordsInFlight) records \
                (RNM_GRAPHQL_MAX_RECORDS_IN_FLIGHT); retry shortly
                """
            }
        }
    }

    /// Counts a request of `client` in (its ticket), or says why not (nothing counted then).
    /// Each admitted request is counted out with ``leave(_:ticket:records:)``.
    func enter(_ client: String) -> Result<UInt64, Refusal> {
        state.withLock { state -> Result<UInt64, Refusal> in
            if state.running >= limits.maxRunning {
                refusedRunning.increment()
                return .failure(.busy)
            }
            if state.byClient[client, default: 0] >= limits.maxRunningPerClient {
                refusedPerClient.increment()
                return .failure(.clientBusy)
            }
            state.running += 1
            state.byClient[client, default: 0] += 1
            state.nextTicket += 1
            state.order.append(state.nextTicket)
            return .success(state.nextTicket)
        }
    }

    /// A request past its deadline was answered: it stops being the oldest (it may be waiting
    /// on a call and take nothing for a while, and the others must not wait on it), and still
    /// counts as running until it has stopped (``leave(_:ticket:records:)``).
    func abandon(_ ticket: UInt64) {
        state.withLock { $0.order.removeAll { $0 == ticket } }
    }

    /// Counts a request out, with the records it held.
    func leave(_ client: String, ticket: UInt64, records: Int) {
        state.withLock { state in
            state.order.removeAll { $0 == ticket }
            state.running -= 1
            let left = state.byClient[client, default: 1] - 1
            state.byClient[client] = left > 0 ? left : nil
            state.records -= records
        }
    }

    /// Takes `count` more records from the shared budget for the request of `ticket`; false (and
    /// nothing taken) past it, unless that request is the oldest running.
    func reserve(records count: Int, ticket: UInt64) -> Bool {
        let taken = state.withLock { state in
            guard state.records + count <= limits.maxRecordsInFlight || state.order.first == ticket else {
                return false
            }
            state.records += count
            return true
        }
        if !taken { refusedRecords.increment() }
        return taken
    }

    /// Gives back records reserved and not used.
    func giveBack(records count: Int) {
        state.withLock { $0.records -= count }
    }

    /// Requests worked on now (tests, metrics).
    var running: Int { state.withLock(\.running) }
}
