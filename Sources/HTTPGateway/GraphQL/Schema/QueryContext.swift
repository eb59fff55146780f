import GraphQL
import Messaging
import RnmAPI
import ServiceRuntime
import Synchronization

/// One GraphQL request's reads: through the Gateway like every rnm client (never the upstream),
/// at most ``GraphQLLimits/maxCallsInFlight`` at once, counted against the record budget before
/// each fetch, and the freshness of every part kept for `extensions.rnm` and `Cache-Status`.
final class QueryContext: Sendable {
    let reader: GatewayReader
    let shapes: PublicShapes
    let limits: GraphQLLimits
    /// The records budget shared by every query in flight, and this query's ticket there.
    let admission: GraphQLAdmission?
    let ticket: UInt64
    /// At most `RNM_GRAPHQL_MAX_CALLS_IN_FLIGHT` of this query's Gateway calls at once: a wide
    /// query waits for its own calls instead of taking the link's slots from other clients.
    private let gate: WaitingSlots
    private let state = Mutex(State())
    /// The fetches of this query, by kind and id (``records(_:_:)``).
    private let fetches = Mutex<[RecordKind: [Int: Task<Fetched, any Error>]]>([:])

    private struct State {
        var records = 0
        var calls = 0
        var parts: [Freshness] = []
        var errors: [GraphQLError] = []
        var overBudget = false
        var overShared = false
    }

    /// Whether the records budget of all queries in flight refused this one's next records:
    /// then it is answered 503, to be tried again.
    var overShared: Bool { state.withLock(\.overShared) }

    /// Records this query holds in the shared budget (given back when it is answered).
    var recordsHeld: Int { state.withLock(\.records) }

    /// Errors met where a field could not throw (``Level/nodes(_:as:)``), each message once.
    var errors: [GraphQLError] { state.withLock(\.errors) }

    /// Whether the query met ``GraphQLLimits/maxRecords``: then it is answered with that error
    /// alone, no data.
    var overBudget: Bool { state.withLock(\.overBudget) }

    /// Notes an error that could not be thrown.
    func note(_ error: any Error) {
        let message = (error as? FieldError)?.description ?? PublicResponse.describe(error).message
        let error = GraphQLError(message: message)
        state.withLock { state in
            if !state.errors.contains(where: { $0.message == error.message }) { state.errors.append(error) }
        }
    }

    init(
        reader: GatewayReader, shapes: PublicShapes, limits: GraphQLLimits, admission: GraphQLAdmission? = nil,
        ticket: UInt64 = 0
    ) {
        self.ticket = ticket
        self.reader = reader
        self.shapes = shapes
        self.limits = limits
        self.admission = admission
        gate = WaitingSlots(size: max(1, limits.maxCallsInFlight))
    }

    /// What the query read, for `extensions.rnm`: the freshness of all of it, the Gateway calls
    /// it made and the records it resolved (nil when it read nothing, as introspection).
    var report: Report? {
        let state = state.withLock { $0 }
        guard !state.parts.isEmpty else { return nil }
        return Report(freshness: Freshness.combined(state.parts), calls: state.calls, records: state.records)
    }

    struct Report: Encodable {
        let freshness: Freshness
        let calls: Int
        let records: Int

        func encode(to encoder: any Encoder) throws {
            try freshness.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(calls, forKey: .calls)
            try container.encode(records, forKey: .records)
        }

        private enum CodingKeys: String, CodingKey { case calls, records }
    }

    /// A Gateway call, when the per-query gate lets it go.
    private func gated<T: Sendable>(_ call: @Sendable () async throws -> T) async throws -> T {
        // The query's own deadline (RNM_GRAPHQL_TIMEOUT_MS) cancels the wait; this bound is a
        // backstop.
        guard await gate.acquire(within: limits.timeout, client: "") else { throw CancellationError() }
        defer { gate.release() }
        state.withLock { $0.calls += 1 }
        return try await call()
    }

    /// A page of a kind's list (20 records at most, counted before it is asked for).
    func list<Record: KindRecord>(_ type: Record.Type, _ params: Record.ListParamsType) async throws -> Page<Record> {
        try reserve(RecordKind.pageSize)
        let page = try await mapped { try await self.gated { try await self.reader.list(type, params) } }
        let unused = RecordKind.pageSize - page.items.count
        state.withLock {
            $0.records -= unused
            $0.parts.append(page.freshness)
        }
        admission?.giveBack(records: unused)
        return page.value
    }

    /// The records of `ids` that exist, by id, and the ids neither cached nor checked (the
    /// upstream failed; counted by the caller: ``reserve(_:)``). A record this query has fetched
    /// or is fetching already is not asked for again: root fields and levels that want the same
    /// records share one Gateway call and one decoding. (Each alias decoding its own copy, 20
    /// aliases of `charactersByIds` of the 493 characters cost 0.34 s of CPU, 70% of it in
    /// `JSONDecoder`.) Which call a shared record comes from depends on which field asked first,
    /// so a query's `calls` may vary by a few between runs; its answer does not.
    func records<Record: KindRecord>(
        _ type: Record.Type, _ ids: [Int]
    ) async throws -> (records: [Int: Record], unchecked: Set<Int>) {
        guard !ids.isEmpty else { return ([:], []) }
        let kind = Record.kind
        let tasks = fetches.withLock { fetches in
            var tasks: [Task<Fetched, any Error>] = []
            var missing: [Int] = []
            for id in ids {
                if let task = fetches[kind]?[id] {
                    if !tasks.contains(task) { tasks.append(task) }
                } else {
                    missing.append(id)
                }
            }
            if !missing.isEmpty {
                let task = Task { [self] in try await fetch(type, missing) }
                for id in missing { fetches[kind, default: [:]][id] = task }
                tasks.append(task)
            }
            return tasks
        }
        let wanted = Set(ids)
        var records: [Int: Record] = [:]
        records.reserveCapacity(wanted.count)
        var unchecked: Set<Int> = []
        for task in tasks {
            let fetched = try await task.value
            // One cast per fetch (its dictionary), not one per record.
            guard let all = fetched.records as? [Int: Record] else { continue }
            for id in wanted where records[id] == nil {
                if let record = all[id] { records[id] = record }
            }
            unchecked.formUnion(fetched.unchecked.intersection(wanted))
        }
        return (records, unchecked)
    }

    /// What one Gateway fetch brought: the records by id (of the fetch's kind), and the ids it
    /// could not check.
    private struct Fetched: Sendable {
        /// `[Int: Record]` of the fetch's kind.
        let records: any Sendable
        let unchecked: Set<Int>
    }

    private func fetch<Record: KindRecord>(_ type: Record.Type, _ ids: [Int]) async throws -> Fetched {
        let found = try await mapped {
            try await self.reader.records(type, ids) { part in try await self.gated(part) }
        }
        if let freshness = found.freshness { state.withLock { $0.parts.append(freshness) } }
        let records = Dictionary(found.items.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return Fetched(records: records, unchecked: Set(found.unchecked))
    }

    /// Counts `count` more records in the answer, or fails naming the limit. Called before the
    /// records are asked for and their objects made, once per use (an aliased copy of a field
    /// counts again): a query past the limit builds nothing past it.
    /// A query past its deadline (``GraphQLLimits/timeout``) is cancelled: it stops here.
    func reserve(_ count: Int) throws {
        if Task.isCancelled { throw FieldError("the query was stopped (RNM_GRAPHQL_TIMEOUT_MS)") }
        let allowed = state.withLock { state in
            guard !state.overBudget, !state.overShared, state.records + count <= limits.maxRecords else {
                if !state.overShared { state.overBudget = true }
                return false
            }
            guard admission?.reserve(records: count, ticket: ticket) ?? true else {
                state.overShared = true
                return false
            }
            state.records += count
            return true
        }
        guard allowed else { throw FieldError(budgetError.message) }
    }

    /// Fails naming the limit, before anything is asked for, when `count` more records cannot
    /// fit in the answer: a level's load of `count` distinct records, each of which the answer
    /// holds at least once, is refused whole. (Counted per use only, the level the budget ran
    /// out in was loaded whole: 544 characters asked of the upstream for a budget of 300.)
    func ensureRoom(for count: Int) throws {
        let fits = state.withLock { state in
            guard !state.overBudget, !state.overShared, state.records + count <= limits.maxRecords else {
                if !state.overShared { state.overBudget = true }
                return false
            }
            return true
        }
        guard fits else { throw FieldError(budgetError.message) }
    }

    /// The error of a query past ``GraphQLLimits/maxRecords`` (the query's answer).
    var budgetError: GraphQLError {
        GraphQLLimits.exceeded("the query resolves more than \(limits.maxRecords) records (RNM_GRAPHQL_MAX_RECORDS)")
    }

    /// rnm's failures in the words its REST answers use (``PublicResponse/describe(_:)``).
    private func mapped<T>(_ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch let error as FieldError {
            throw error
        } catch {
            throw FieldError(PublicResponse.describe(error).message)
        }
    }
}
