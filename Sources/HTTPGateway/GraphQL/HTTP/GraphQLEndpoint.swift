#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import CoreMetrics
import GraphQL
import Graphiti
import HTTPTypes
import Hummingbird
import Logging
import Messaging
import NIOCore
import RnmAPI

/// `/graphql`: GraphQL over HTTP as clients send it (`POST` with `application/json`, `GET` with
/// query parameters), answered from rnm's caches through the Gateway, with the freshness of
/// what it read in `extensions.rnm` and in the same `Cache-Status` / `Age` headers as REST.
/// The document is measured against the limits before it is validated or run.
struct GraphQLEndpoint: Sendable {
    let schema: Schema<RickAndMortyResolver, QueryContext>
    let reader: GatewayReader
    let shapes: PublicShapes
    let limits: GraphQLLimits
    /// Documents parsed, costed and validated, refusals too, by their text.
    let documents: GraphQLDocuments
    /// The schema's object types and fields, for ``ExecutionPlan``.
    let shape: ExecutionPlan.Shape
    /// The HTTP micro-cache, shared with REST: an answer read wholly fresh from rnm's cache is
    /// answered again from memory for `RNM_HTTP_CACHE_MS`, as a REST answer is.
    let answers: ResponseCache
    /// Counts its repeats, as REST's are counted (`rnm_http_cache_hits_total`).
    let hits: Counter
    /// Answers that read nothing through the Gateway (introspection: `__schema`, `__type`,
    /// `__typename`), by the same key, kept for good: the schema never changes while the
    /// process runs, so GraphiQL's introspection query is run once, not on every page load
    /// (`RNM_GRAPHQL_CACHE_BYTES` of answers).
    let schemaAnswers: ExpiringCache<ResponseCache.Entry>
    /// How much GraphQL work runs at once; where it runs.
    let admission: GraphQLAdmission
    let workers: GraphQLWorkers
    let logger: Logger
    /// Every query run by the library (tests: ``HTTPGatewayConfiguration/graphQLLibraryExecutor``).
    let libraryExecutor: Bool

    init(
        schema: Schema<RickAndMortyResolver, QueryContext>, reader: GatewayReader, shapes: PublicShapes,
        limits: GraphQLLimits, answers: ResponseCache, hits: Counter, admission: GraphQLAdmission,
        workers: GraphQLWorkers, logger: Logger, libraryExecutor: Bool = false
    ) {
        self.hits = hits
        self.libraryExecutor = libraryExecutor
        self.schema = schema
        self.reader = reader
        self.shapes = shapes
        self.limits = limits
        documents = GraphQLDocuments(schema: schema.schema, limits: limits)
        shape = ExecutionPlan.Shape(schema.schema)
        schemaAnswers = ExpiringCache(maxBytes: limits.cacheBytes)
        self.answers = answers
        self.admission = admission
        self.workers = workers
        self.logger = logger
    }

    static let graphQLResponseType = "application/graphql-response+json"

    /// The media type of the answer and of its request errors (4xx under the GraphQL-over-HTTP
    /// type when the client names it; 200 with `errors` under `application/json`, as older
    /// clients expect).
    private struct Answering: Sendable {
        let contentType: String
        let requestError: HTTPResponse.Status

        init(_ request: Request) {
            let modern = request.headers[.accept]?.contains(GraphQLEndpoint.graphQLResponseType) == true
            contentType = (modern ? GraphQLEndpoint.graphQLResponseType : "application/json") + "; charset=utf-8"
            requestError = modern ? .badRequest : .ok
        }
    }

    /// Reads the request and answers it: from the micro-cache on the event loop, else on the
    /// GraphQL threads within the admission limits and the deadline.
    func respond(to request: Request, client: String) async -> Response {
        let answering = Answering(request)
        var request = request
        let body: GraphQLRequest
        let sentKey: String?
        switch await read(&request) {
        case .success(let read): (body, sentKey) = read
        case .failure(let refusal):
            return answer(errors: [refusal.error], status: refusal.status, contentType: answering.contentType)
        }
        let key = Self.answerKey(body, contentType: answering.contentType)
        if let (kept, storedAt) = answers.lookup(key) {
            if let sentKey { answers.alias(sentKey, to: key) }
            hits.increment()
            return repeated(kept, storedAt: storedAt, to: request.head)
        }
        if let kept = schemaAnswers.entry(for: key) {
            // As a micro-cache hit is sent: its ETag (304 to a GET that has it), gzipped to a
            // client that takes it (GraphiQL's introspection answer is the largest repeated).
            return repeated(kept.value, storedAt: kept.storedAt, to: request.head)
        }
        let ticket: UInt64
        switch admission.enter(client) {
        case .success(let admitted): ticket = admitted
        case .failure(let refusal): return busy(refusal.message(limits), contentType: answering.contentType)
        }
        let head = request.head
        // Read before the query runs: a change while it runs makes a later version.
        let dataVersion = answers.dataVersion(of: request.uri.path)
        let context = QueryContext(
            reader: reader, shapes: shapes, limits: limits, admission: admission, ticket: ticket)
        let answered = await workers.run(within: limits.timeout) { [self] in
            defer { admission.leave(client, ticket: ticket, records: context.recordsHeld) }
            let answered = await work(
                body, key: key, request: head, context: context, answering: answering, dataVersion: dataVersion)
            // Kept under its key just now, or not at all.
            if let sentKey { answers.alias(sentKey, to: key) }
            return answered
        }
        guard let answered else {
            admission.abandon(ticket)
            let error = GraphQLError(
                message: "the query ran past \(Int(limits.timeout / .milliseconds(1))) ms "
                    + "(RNM_GRAPHQL_TIMEOUT_MS) and was stopped",
                extensions: ["code": "TIMEOUT"])
            return answer(errors: [error], status: .gatewayTimeout, contentType: answering.contentType)
        }
        return answered
    }

    /// 503 at once, with how long to wait.
    private func busy(_ message: String, contentType: String) -> Response {
        let error = GraphQLError(message: message, extensions: ["code": "BUSY"])
        var response = answer(errors: [error], status: .serviceUnavailable, contentType: contentType)
        response.headers[.retryAfter] = "1"
        return response
    }

    /// Prepares, runs and encodes the query: the part that costs CPU, on the GraphQL threads. An
    /// answer kept is kept with `dataVersion`: repeated past the TTL while the data is unchanged.
    private func work(
        _ body: GraphQLRequest, key: String, request: HTTPRequest, context: QueryContext, answering: Answering,
        dataVersion: DataVersions.Seen?
    ) async -> Response {
        let isGet = request.method == .get
        let contentType = answering.contentType
        let document: Document
        switch documents.prepare(body.query) {
        case .document(let prepared): document = prepared
        case .refused(let errors):
            return answer(errors: errors, status: answering.requestError, contentType: contentType)
        }
        if isGet, Self.isMutation(document, named: body.operationName) {
            let error = GraphQLError(message: "a mutation cannot be sent with GET")
            var refused = answer(errors: [error], status: .methodNotAllowed, contentType: contentType)
            // A 405 names what the path takes (RFC 9110 §15.5.6), as the router's own do.
            refused.headers[.allow] = PublicAPIRoutes.allowed(request.path ?? "")
            return refused
        }
        let executed = await execute(document, body, context: context)
        if context.overShared {
            return busy(GraphQLAdmission.Refusal.records.message(limits), contentType: contentType)
        }
        if context.overBudget {
            // No half answer: the limit alone, with what was read before it was met.
            return answer(errors: [context.budgetError], report: context.report, status: .ok, contentType: contentType)
        }
        // A run that failed whole (the library stops at an argument it refuses) answers its error
        // alone: what its other root fields noted as they were cancelled ("the query was stopped")
        // depends on how far they had got.
        let errors = executed.errors + (executed.data == nil ? [] : context.errors)
        let report = context.report
        let bytes = GraphQLResponseBody.body(errors: errors, written: executed.data, report: report)
        let response = answer(
            bytes, report: report, status: executed.data == nil ? answering.requestError : .ok, contentType: contentType
        )
        if errors.isEmpty, executed.data != nil, report == nil,
            let kept = ResponseCache.entry(
                key, body: bytes, contentType: contentType, age: 0, route: "/graphql", variesByAccept: true,
                keptIn: schemaAnswers)
        {
            schemaAnswers.store(kept, for: key, size: kept.storedBytes, expires: .now + .seconds(365 * 86400))
        }
        if errors.isEmpty, executed.data != nil, let freshness = report?.freshness, freshness.source == .cache,
            !freshness.stale, freshness.revalidating != true
        {
            let now = ContinuousClock.now
            // Without an `Age`, how old its data is is not known: the TTL only (as REST's).
            let age = response.headers[.age].flatMap { Int($0) }
            if let kept = answers.store(
                key, body: bytes, contentType: contentType, age: age ?? 0, route: "/graphql",
                dataVersion: age == nil ? nil : dataVersion, variesByAccept: true, now: now)
            {
                // Sent as its repeats will be (its ETag, gzip), as a REST answer just kept is.
                return repeated(kept, storedAt: now, to: request)
            }
        }
        return response
    }

    /// What tells one GraphQL answer from another: the media type, the operation, the variables
    /// and the query (compared byte for byte by the cache).
    private static func answerKey(_ request: GraphQLRequest, contentType: String) -> String {
        let encoder = GraphQLJSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let variables = (try? encoder.encode(request.variables)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return "graphql\u{0}\(contentType)\u{0}\(request.operationName ?? "")\u{0}\(variables)\u{0}\(request.query)"
    }

    /// An answer repeated from the micro-cache as a REST hit is
    /// (``ResponseCache/Entry/answer(_:headers:storedAt:now:)``: `304` for a matching `If-None-Match`
    /// on a `GET`, the gzipped copy to a client that takes it), varying by `Accept` too (kept
    /// so: its `Vary` is its entry's).
    private func repeated(
        _ kept: ResponseCache.Entry, storedAt: ContinuousClock.Instant, to request: HTTPRequest
    ) -> Response {
        var conditions = request.headerFields
        // A POST is not a conditional read (RFC 9110 §13.1.2: a 304 answers only GET and HEAD).
        if request.method == .post { conditions[.ifNoneMatch] = nil }
        let (status, headers, body) = kept.answer(
            request.method == .head ? .head : .get, headers: conditions, storedAt: storedAt, now: .now)
        return Response(
            status: status, headers: headers, body: body.map { ResponseBody(byteBuffer: $0) } ?? ResponseBody())
    }

    private static func isMutation(_ document: Document, named name: String?) -> Bool {
        document.definitions.contains { definition in
            guard let operation = definition as? OperationDefinition else { return false }
            return operation.operation == .mutation && (name == nil || operation.name?.value == name)
        }
    }

    // MARK: - Answering

    /// An answer with nothing but errors, or data as ``GraphQLResponseBody/body(errors:data:report:)`` writes it.
    private func answer(
        errors: [GraphQLError], data: Map? = nil, report: QueryContext.Report? = nil, status: HTTPResponse.Status,
        contentType: String
    ) -> Response {
        answer(
            GraphQLResponseBody.body(errors: errors, data: data, report: report), report: report, status: status,
            contentType: contentType)
    }

    private func answer(
        _ bytes: ByteBuffer, report: QueryContext.Report?, status: HTTPResponse.Status, contentType: String
    ) -> Response {
        var response = PublicResponse.body(
            bytes, contentType: contentType, status: status, freshness: report?.freshness)
        // The body depends on Accept (its media type): the REST micro-cache passes it over.
        response.headers[.vary] = "Accept"
        return response
    }
}
