#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import CoreMetrics
import Logging
import Messaging
import NIOCore
import RnmAPI
import ServiceRuntime
import Synchronization
import Telemetry

/// Routes each request by its method's prefix and forwards it as bytes: only `id` and
/// `method` are read; the id is re-labelled towards the service and restored on the way back;
/// `params` and `result` are never decoded.
final class GatewayHandler: RPCHandler {
    private let links: [ServiceName: ServiceLink]
    private let requestTimeout: Duration
    /// How long a service's health is waited for before it is reported down.
    private let healthTimeout: Duration
    private let maxInFlight: Int
    private let inFlight = Atomic<Int>(0)
    /// `gateway.health` calls being answered: within the in-flight limit too, though not
    /// reported as forwards.
    private let healthInFlight = Atomic<Int>(0)
    /// The services' states being asked now: concurrent `gateway.health` calls share one probe
    /// of each service, so a flood of them costs each service one health call at a time (and
    /// cannot make them slow enough to look down).
    private let probing = Mutex<Task<[String: GatewayHealth.ServiceState], Never>?>(nil)
    private let started = ContinuousClock.now
    private let instruments: Instruments
    /// Requests refused for the Gateway's own limit (`RNM_MAX_IN_FLIGHT`).
    private let refusedInFlight: Counter

    init(
        links: [ServiceLink], requestTimeout: Duration, healthTimeout: Duration, maxInFlight: Int,
        instruments: Instruments = .disabled
    ) {
        self.instruments = instruments
        refusedInFlight = RnmMetrics.refused.counter("RNM_MAX_IN_FLIGHT", in: instruments)
        self.links = Dictionary(uniqueKeysWithValues: links.map { ($0.service, $0) })
        self.requestTimeout = requestTimeout
        self.healthTimeout = healthTimeout
        self.maxInFlight = maxInFlight
    }

    func handle(_ request: RPCRequest, context: RPCRequestContext) async throws -> RPCReply {
        let method = request.method
        switch RPCMethods.service(answering: method) {
        case .gateway where method == RPCMethods.gatewayHealth.name:
            defer { healthInFlight.wrappingSubtract(1, ordering: .relaxed) }
            let health = healthInFlight.wrappingAdd(1, ordering: .relaxed).newValue
            guard health + inFlight.load(ordering: .relaxed) <= maxInFlight else {
                refusedInFlight.increment()
                throw RPCError(
                    .overloaded, "overloaded: more than \(maxInFlight) requests in flight; retry later",
                    service: ServiceName.gateway)
            }
            return .result(try JSONCoding.encode(await self.health()))
        case .gateway where method == RPCMethods.gatewayHello.name:
            return .result(try JSONCoding.encode(hello(request, context: context)))
        case .gateway where method == RPCMethods.gatewayMetrics.name:
            return .result(try JSONCoding.encode(MetricsReport(exposition: instruments.exposition())))
        case .some(let service) where service != .gateway:
            return try await forward(request, to: links[service]!, context: context)
        default:
            throw RPCError(
                .methodNotFound, "method \"\(RPCError.excerpt(method))\" not found", service: ServiceName.gateway)
        }
    }

    /// The forward without a task: when the service's link is up, the request is re-labelled
    /// and written from where it was read, and the reply is re-labelled and handed back from
    /// the link's event loop where it arrives. Anything else (the Gateway's own health, a link
    /// being connected) takes ``handle(_:context:)``.
    func start(
        _ request: RPCRequest, context: RPCRequestContext,
        reply: @escaping @Sendable (Result<RPCReply, any Error>) -> Void
    ) -> Bool {
        guard let service = RPCMethods.service(answering: request.method), service != .gateway,
            let client = links[service]?.connectedClient
        else { return false }
        forward(request, through: client, service: service, context: context, reply: reply)
        return true
    }

    /// The forward from a task, for a link not connected yet: connects (or fails at once with
    /// -32003 while the service is away), then forwards as ``start(_:context:reply:)`` does.
    private func forward(
        _ request: RPCRequest, to link: ServiceLink, context: RPCRequestContext
    ) async throws -> RPCReply {
        let client: RPCClient
        do {
            client = try await link.client()
        } catch {
            context.logger.warning("request failed", metadata: ["service": "\(link.service)", "error": "\(error)"])
            throw error
        }
        return try await withCheckedThrowingContinuation { continuation in
            forward(request, through: client, service: link.service, context: context) { continuation.resume(with: $0) }
        }
    }

    /// One forward: counted in flight, re-labelled with an id of `client`'s and sent; the
    /// reply, re-labelled with the client's id, goes to `reply` from the link's event loop.
    /// Progress notifications are written to the client as they arrive, so they reach it
    /// before the final reply. A notification is sent as a request with the Gateway's own
    /// id, so that it stays in flight (and counts against every limit) until the service has
    /// finished it; its reply is dropped.
    private func forward(
        _ request: RPCRequest, through client: RPCClient, service: ServiceName, context: RPCRequestContext,
        reply: @escaping @Sendable (Result<RPCReply, any Error>) -> Void
    ) {
        // Past the limit, a client with nothing else in flight is still served: many clients
        // holding the limit between them (a flood that never reads) cannot shut out a newcomer
        // (issue 35, finding 7). The overshoot is at most one request a connection
        // (`RNM_MAX_CONNECTIONS`).
        guard
            inFlight.wrappingAdd(1, ordering: .relaxed).newValue + healthInFlight.load(ordering: .relaxed)
                <= maxInFlight || context.inFlightOnConnection <= 1
        else {
            inFlight.wrappingSubtract(1, ordering: .relaxed)
            refusedInFlight.increment()
            reply(
                .failure(
                    RPCError(
                        .overloaded, "overloaded: more than \(maxInFlight) requests in flight; retry later",
                        service: ServiceName.gateway)))
            return
        }
        let envelope = request.envelope
        // A request the size of what it asks: padding is refused here, before it takes a
        // share of the service link's buffer (the service never reads it).
        if let params = envelope.paramsRange, params.count > RPCMethods.smallestMaxParamsBytes,
            case let maxParamsBytes = RPCMethods.maxParamsBytes(of: request.method), params.count > maxParamsBytes
        {
            inFlight.wrappingSubtract(1, ordering: .relaxed)
            reply(
                .failure(
                    RPCError(
                        .invalidParams,
                        """
                        invalid params: \(params.count) bytes; \(RPCError.excerpt(request.method)) accepts at \
                        most \(maxParamsBytes)
                        """,
                        service: ServiceName.gateway)))
            return
        }
        let clientID = envelope.rawID
        // Who the request is for (docs/PROTOCOL.md §3): its connection, and for a relay (the
        // HTTP front) which of the relay's clients, under that connection's name, so that no
        // connection can name another's clients (a relay is trusted as far as the socket's
        // permissions trust its peers: it may name many clients of its own).
        // A connection's own name is digits: quoted as it is; a relayed name is escaped.
        let relayed = context.relaysClients ? envelope.client.map { "c\(context.connection)/" + $0 } : nil
        let clientJSON = relayed.map(JSONText.quoted) ?? "\"c\(context.connection)\""
        let makeFrame: (Int64) -> ByteBuffer = { serviceID in envelope.frame(withID: serviceID, client: clientJSON) }
        let forward = Forward(clientID: clientID, context: context, service: service, reply: reply) { [self] in
            inFlight.wrappingSubtract(1, ordering: .relaxed)
        }
        do {
            try client.start(
                timeout: requestTimeout, onProgress: clientID == nil ? nil : forward.progress,
                dropReply: clientID == nil ? nil : context.clientBacklog,
                origin: clientID.map { RPCClient.Origin(connection: context.connection, requestID: $0) },
                makeFrame, completion: forward.complete)
        } catch {
            inFlight.wrappingSubtract(1, ordering: .relaxed)
            reply(.failure(error))
        }
    }

    /// Every method of the route table: each has its series in the Gateway's metrics.
    var methodNames: Set<String> { Set(RPCMethods.all.map(\.name)) }

    /// A client gave up on a forwarded request (`rpc.cancel`): the forward fails (-32800), and
    /// the service is told, so that it stops the work.
    func cancel(requestID: ByteBuffer, connection: UInt64) {
        let origin = RPCClient.Origin(connection: connection, requestID: requestID)
        for link in links.values { link.connectedClient?.cancel(origin: origin) }
    }

    /// `gateway.hello`: a client that reads every reply (the HTTP front) has its replies held
    /// rather than dropped; `holdReplies: false` (or none) puts the connection back to the rule
    /// for anyone.
    private func hello(_ request: RPCRequest, context: RPCRequestContext) throws -> GatewayLinkMode {
        let hello = try request.decodeParams(GatewayHello.self)
        context.holdReplies(hello.holdReplies)
        if hello.holdReplies {
            context.logger.info(
                "a client reading every reply: its replies are held, not dropped",
                metadata: ["client": "\(RPCError.excerpt(hello.client))"])
        }
        return GatewayLinkMode(holdsReplies: hello.holdReplies, maxInFlight: context.maxInFlight)
    }

    /// `gateway.health`: each service's health method, with latency and last error.
    private func health() async -> GatewayHealth {
        let services = await serviceStates()
        let allUp = services.values.allSatisfy { $0.status == "up" }
        let uptime = ContinuousClock.now - started
        return GatewayHealth(
            status: allUp ? "ok" : "degraded", version: rnmVersion,
            uptimeSeconds: Double(uptime.components.seconds) + Double(uptime.components.attoseconds) / 1e18,
            services: services, inFlight: inFlight.load(ordering: .relaxed))
    }

    /// Each service's state: one probe for all callers in flight.
    private func serviceStates() async -> [String: GatewayHealth.ServiceState] {
        let links = self.links
        let timeout = healthTimeout
        let task = probing.withLock { current in
            if let current { return current }
            let task = Task {
                await withTaskGroup(of: (String, GatewayHealth.ServiceState).self) { group in
                    for link in links.values {
                        group.addTask { (link.service.rawValue, await Self.probe(link, timeout: timeout)) }
                    }
                    return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
                }
            }
            current = task
            return task
        }
        let states = await task.value
        probing.withLock { if $0 == task { $0 = nil } }
        return states
    }

    private static func probe(_ link: ServiceLink, timeout: Duration) async -> GatewayHealth.ServiceState {
        let started = ContinuousClock.now
        do {
            guard let method = RPCMethods.health(of: link.service) else {
                throw RPCError(.methodNotFound, "no health method", service: link.service)
            }
            // A connection made again for the probe counts against the timeout: the answer then
            // comes within it, or within the 2 s a connection is given if that is longer.
            // Said with the whole timeout, not what was left of it.
            let timedOut = RPCError.timedOut(link.service.rawValue, milliseconds: Int64(timeout / .milliseconds(1)))
            let client = try await link.client()
            let left = timeout - (ContinuousClock.now - started)
            guard left > .zero else { throw timedOut }
            do {
                _ = try await client.call(method, NoParams(), timeout: left)
            } catch let error as RPCError where error.code == .timeout {
                throw timedOut
            }
            let elapsed = ContinuousClock.now - started
            let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            return .init(status: "up", latencyMs: (milliseconds * 1000).rounded() / 1000, lastError: nil)
        } catch {
            return .init(status: "down", latencyMs: nil, lastError: (error as? RPCError)?.message ?? "\(error)")
        }
    }
}
