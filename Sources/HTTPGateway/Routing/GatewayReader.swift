import Messaging
import RnmAPI
import ServiceRuntime

/// The HTTP front's reads, all through the Gateway (never the upstream): the REST routes and
/// GraphQL share them.
struct GatewayReader: Sendable {
    let gateway: ServiceLink
    /// Deadline of one call.
    let timeout: Duration

    func call<P, R>(_ method: RPCMethod<P, R>, _ params: P) async throws -> R {
        try await gateway.client().call(method, params, timeout: timeout)
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
