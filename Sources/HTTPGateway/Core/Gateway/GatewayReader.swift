import Messaging
import RnmAPI
import ServiceRuntime

/// The HTTP front's reads, all through the Gateway (never the upstream): the REST routes and
/// GraphQL share them.
struct GatewayReader: Sendable {
    let gateway: ServiceLink
    /// Deadline of one call.
    let timeout: Duration
    /// The requests the link may have in flight (the Gateway's limit for one connection, which
    /// `gateway.hello` reports): the rest wait here, in order, within their deadline, instead
    /// of being refused by the Gateway (-32005, a 503). 3,000 reads at once once got 439 to
    /// 1,194 503s on a healthy system.
    let slots: WaitingSlots

    func call<P, R>(
        _ method: RPCMethod<P, R>, _ params: P, onProgress: (@Sendable (ProgressUpdate) -> Void)? = nil
    ) async throws -> R {
        let started = ContinuousClock.now
        // Connected first: a new link says gateway.hello, which sizes the slots, before any is taken.
        let client = try await gateway.client()
        let remaining = timeout - (ContinuousClock.now - started)
        guard await slots.acquire(within: remaining) else {
            try Task.checkCancellation()
            throw Self.noSlot(timeout)
        }
        defer { slots.release() }
        // A slot got as the wait ran out: not sent (the Gateway and the service would work
        // for an answer already too late).
        let left = timeout - (ContinuousClock.now - started)
        guard left >= .milliseconds(1) else { throw Self.noSlot(timeout) }
        // A long call's progress restarts its deadline (a sync's), as rnmctl's does.
        return try await client.call(method, params, timeout: left, onProgress: onProgress)
    }

    private static func noSlot(_ timeout: Duration) -> RPCError {
        RPCError(
            .timeout, "no answer within \(timeout): every request rnm relays at once was in flight",
            service: ServiceName.gateway.rawValue)
    }

    /// A page of a kind's list.
    func list<Record: KindRecord>(
        _ type: Record.Type, _ params: Record.ListParamsType
    ) async throws -> Fresh<Page<Record>> {
        try await call(Record.listMethod, params)
    }

    /// The records of `ids`, asked in parts a `getMany` takes (`parts` runs each part: GraphQL
    /// passes its per-query gate): the ones that exist in the order asked, the freshness of all
    /// parts, and the ids that could not be checked (not cached, the upstream failed).
    func records<Record: KindRecord>(
        _ type: Record.Type, _ ids: [Int],
        each part: (@Sendable () async throws -> Fresh<Batch<Record>>) async throws -> Fresh<Batch<Record>> = {
            try await $0()
        }
    ) async throws -> (items: [Record], freshness: Freshness?, unchecked: [Int]) {
        var items: [Record] = []
        var unchecked: [Int] = []
        var parts: [Freshness] = []
        for params in IDsParams.parts(of: ids) {
            let found = try await part { try await call(Record.getManyMethod, params) }
            items += found.items
            unchecked += found.uncheckedIds
            parts.append(found.freshness)
        }
        return (items, parts.isEmpty ? nil : Freshness.combined(parts), unchecked)
    }
}
