import CompressNIO
import CoreMetrics
import HTTPTypes
import Hummingbird
import NIOCore
import Messaging

/// A short-lived cache of finished answers in front of the routes (a micro-cache, as HTTP
/// fronts keep): a `GET` whose answer came fresh from rnm's cache (`Cache-Status: rnm; hit`)
/// is answered again from memory for `ttl`, without a call to the Gateway. Nothing else is
/// kept: not a fetch (`fwd=miss`), not a stale answer, not an error. GraphQL answers, which vary
/// by the request's body and `Accept`, are kept by ``GraphQLEndpoint`` under keys of its own
/// (this middleware passes over answers with `Vary`). Bounded by `maxBytes`,
/// oldest first out; a `ttl` of zero turns it off. An answer kept with its service's data
/// version (``DataVersions``) is repeated past `ttl` while the service confirms that version,
/// until the answer is as old as the service's max age (issue 40: the random-record read
/// stops going back to the Gateway every `ttl`).
struct ResponseCache: Sendable {
    let ttl: Duration
    private let entries: ExpiringCache<Entry>
    /// The calls in flight for answers it does not hold, one per key.
    let flights = MissFlights<RoutedAnswer>()
    /// What the services say of their data; nil: every answer lives `ttl`.
    let versions: DataVersions?

    init(ttl: Duration, maxBytes: Int, versions: DataVersions? = nil) {
        self.ttl = ttl
        self.entries = ExpiringCache(maxBytes: maxBytes)
        self.versions = versions
    }

    var isEnabled: Bool { ttl > .zero && entries.maxBytes > 0 }
    var maxBytes: Int { entries.maxBytes }

    func lookup(
        _ key: String, now: ContinuousClock.Instant = .now
    ) -> (entry: Entry, storedAt: ContinuousClock.Instant)? {
        guard let found = entries.entry(for: key, now: now) else { return nil }
        guard now - found.storedAt >= ttl else { return (found.value, found.storedAt) }
        guard let seen = found.value.dataVersion, versions?.holds(seen, now: now) == true else { return nil }
        return (found.value, found.storedAt)
    }

    /// The data version to keep an answer of `path` with, read before it is asked for: a change
    /// while it is in flight makes a later version. Nil: kept for `ttl` only.
    func dataVersion(of path: String, now: ContinuousClock.Instant = .now) -> DataVersions.Seen? {
        guard let versions, let service = PublicAPIRoutes.service(answering: path) else { return nil }
        return versions.current(service, now: now)
    }

    /// Keeps an answer; returns what was kept (nil when the cache is off, or the answer is over its share).
    @discardableResult
    func store(
        _ key: String, body: ByteBuffer, contentType: String, age: Int, cacheControl: String? = nil,
        route: String = "unmatched", dataVersion: DataVersions.Seen? = nil, variesByAccept: Bool = false,
        now: ContinuousClock.Instant = .now
    ) -> Entry? {
        guard isEnabled,
            let entry = Self.entry(
                key, body: body, contentType: contentType, age: age, cacheControl: cacheControl, route: route,
                dataVersion: dataVersion, variesByAccept: variesByAccept, keptIn: entries)
        else { return nil }
        entries.store(
            entry, for: key, size: entry.storedBytes, expires: now + lifetime(age: age, dataVersion), now: now)
        return entry
    }

    /// Keeps the answer held under `key` under `sentKey` too (``SentRequestKey``), as stored and
    /// until it expires. Charged the answer's size again, though it shares the answer's bytes:
    /// it keeps them alive after `key` is evicted, until it is itself (up to the service's max
    /// age), so counted once, many keys sent for answers since evicted would hold them uncounted.
    func alias(_ sentKey: String, to key: String, now: ContinuousClock.Instant = .now) {
        guard isEnabled, let found = entries.entry(for: key, now: now) else { return }
        entries.store(
            found.value, for: sentKey, size: found.value.storedBytes, expires: found.expires, now: found.storedAt)
    }

    /// How long an answer `age` seconds old may be repeated: `ttl`, or with a data version, until
    /// it is as old as its service's max age (`Age` counts whole seconds: one more is taken off).
    func lifetime(age: Int, _ dataVersion: DataVersions.Seen?) -> Duration {
        guard let dataVersion else { return ttl }
        let fresh = dataVersion.maxAge - Double(age) - 1
        guard fresh.isFinite else { return ttl }
        // The bound keeps the arithmetic in range; max ages are far within it.
        return max(ttl, .milliseconds(Int64(min(fresh, 1e9) * 1000)))
    }

    /// The entry to keep for `body` under `key` in `cache`: with its gzipped copy when both fit,
    /// alone when only it does, nil when not even that fits. Decided on what the cache will be
    /// charged (``Entry/storedBytes``, its heads too): an entry it says fits is kept.
    static func entry(
        _ key: String, body: ByteBuffer, contentType: String, age: Int, cacheControl: String? = nil, route: String,
        dataVersion: DataVersions.Seen? = nil, variesByAccept: Bool = false, keptIn cache: ExpiringCache<Entry>
    ) -> Entry? {
        // An answer too large to keep is neither tagged nor gzipped: a 2.2 MB GraphQL answer's
        // gzip and hash were a third of its CPU, for nothing.
        guard cache.fits(body.readableBytes, key: key) else { return nil }
        let etag = ETag.of(body)
        let make = { (gzipped: ByteBuffer?) in
            Entry(
                body: body, contentType: contentType, age: age, cacheControl: cacheControl, route: route, etag: etag,
                gzipped: gzipped, dataVersion: dataVersion, variesByAccept: variesByAccept)
        }
        if let gzipped = gzip(body, contentType: contentType, keptIn: cache, key: key) {
            let entry = make(gzipped)
            if cache.fits(entry.storedBytes, key: key) { return entry }
        }
        let entry = make(nil)
        return cache.fits(entry.storedBytes, key: key) ? entry : nil
    }

    /// `body`'s gzipped copy to keep with it under `key` in `cache`, when both fit (``gzip(_:contentType:)``).
    /// Without it, an answer that fits alone is kept alone: kept with both or not at all, a 1.9 MB
    /// GraphQL answer (with its 0.28 MB copy, over a quarter of the budget) was never kept, and each
    /// repeat ran its query again (~60 ms of CPU), paying for the copy and the tag each time.
    static func gzip(
        _ body: ByteBuffer, contentType: String, keptIn cache: ExpiringCache<Entry>, key: String
    ) -> ByteBuffer? {
        guard let copy = gzip(body, contentType: contentType),
            cache.fits(body.readableBytes + copy.readableBytes, key: key)
        else { return nil }
        return copy
    }

    /// `body` gzipped, for a JSON body of 1 KiB or more that it makes smaller. Past 64 KiB (large
    /// GraphQL answers; a list page is ~10 KiB) at zlib's fastest level, nginx's default: at the
    /// default level the copy of a 1.9 MB answer cost ~30 ms, as much as the answer itself.
    static func gzip(_ body: ByteBuffer, contentType: String) -> ByteBuffer? {
        guard body.readableBytes >= 1024, contentType.hasPrefix("application/json") else { return nil }
        var input = body
        let level: ZlibConfiguration.CompressionLevel =
            body.readableBytes > 64 << 10 ? .fastestCompression : .defaultCompressionLevel
        guard let compressed = try? input.compress(with: .gzip(configuration: .init(compressionLevel: level))),
            compressed.readableBytes < body.readableBytes
        else { return nil }
        return compressed
    }
}

/// Serves `GET`/`HEAD` from the ``ResponseCache`` (when ``MicroCacheFastPath`` has not: a
/// pipelined request behind another), fills it with fresh cached answers, and tags every
/// public `GET` answer with an `ETag` (`304` for a matching `If-None-Match`).
struct ResponseCacheMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Answers larger than this get no ETag (hashing them would cost more than it saves).
    static var maxTaggedBytes: Int { 4 << 20 }

    let cache: ResponseCache
    /// Counts the answers repeated from memory.
    let hits: Counter

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard request.method == .get || request.method == .head else {
            return try await next(request, context)
        }
        let key = request.uri.description
        if let hit = kept(key, request) { return hit }
        guard request.method == .get, cache.isEnabled, Self.flies(request.uri.path) else {
            return try await fetch(key, request, context: context, next: next).response
        }
        switch try await cache.flights.lead(key, { try await fetch(key, request, context: context, next: next) }) {
        case .led(let response):
            return response
        case .followed(let shared):
            // Another request for the same answer was in flight: what it kept, else what it got,
            // else (it failed, or its answer was too large to hold) a call of our own.
            if let hit = kept(key, request) { return hit }
            if let shared { return shared.response(to: request) }
            return try await fetch(key, request, context: context, next: next).response
        }
    }

    /// Paths whose answers may be kept: the web app's pages, the metrics and the probes never are.
    static func mayKeep(_ path: String) -> Bool { PublicAPIRoutes.isPublicAPI(path) }

    /// Paths whose concurrent identical GETs share one call: those whose answers may be kept,
    /// but GraphQL's (they vary by more than the URL, and ``GraphQLEndpoint`` keeps its own).
    static func flies(_ path: String) -> Bool {
        mayKeep(path) && !PublicAPIRoutes.takesPost(path)
    }

    /// The kept answer for `key`, as `request` asks for it (a hit).
    private func kept(_ key: String, _ request: Request) -> Response? {
        let now = ContinuousClock.now
        guard let (entry, storedAt) = cache.lookup(key, now: now) else { return nil }
        hits.increment()
        let hit = entry.answer(request.method, headers: request.headers, storedAt: storedAt, now: now)
        return Response(status: hit.status, headers: hit.headers, body: hit.body.map(ResponseBody.init) ?? .init())
    }

    /// The routes' answer, tagged, and kept when it came fresh from rnm's cache; with it, the
    /// answer as the routes gave it (before this request's conditions), when it was small enough
    /// to hold, for the requests that waited for it.
    private func fetch(
        _ key: String, _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> (response: Response, shared: RoutedAnswer?) {
        let now = ContinuousClock.now
        let dataVersion = cache.dataVersion(of: request.uri.path, now: now)
        var response = try await next(request, context)
        guard request.method == .get, response.headers[.vary] == nil, Self.mayKeep(request.uri.path),
            let length = response.body.contentLength, length <= Self.maxTaggedBytes
        else { return (response, nil) }
        let collector = BodyCollector()
        try await response.body.write(collector)
        response.body = ResponseBody(byteBuffer: collector.buffer)
        // Every public answer of a GET gets an ETag (a client sending it back gets a 304 and no
        // body); one fresh from rnm's cache is also kept here.
        guard response.status == .ok, let contentType = response.headers[.contentType] else {
            return (response, RoutedAnswer(response, body: collector.buffer))
        }
        let etag = ETag.of(collector.buffer)
        response.headers[.eTag] = etag
        let shared = RoutedAnswer(response, body: collector.buffer)
        if response.headers[PublicResponse.cacheStatus] == "rnm; hit", length <= cache.maxBytes / 4,
            let entry = cache.store(
                key, body: collector.buffer, contentType: contentType,
                age: response.headers[.age].flatMap { Int($0) } ?? 0, cacheControl: response.headers[.cacheControl],
                route: context.endpointPath ?? "unmatched",
                // Without an `Age`, how old its data is is not known: the TTL only.
                dataVersion: response.headers[.age] == nil ? nil : dataVersion, now: now),
            entry.gzipped != nil
        {
            // The answer just kept has a compressed copy: this one is sent as its hits are
            // (`Vary`, and the compressed copy with its own tag to a client that takes gzip).
            let (body, headers) = entry.representation(
                gzip: AcceptEncoding.takesGzip(request.headers[.acceptEncoding]), storedAt: now, now: now)
            for field in headers { response.headers[field.name] = field.value }
            response.body = ResponseBody(byteBuffer: body)
        }
        if let tags = request.headers[.ifNoneMatch], ETag.matches(tags, response.headers[.eTag] ?? etag) {
            response.status = .notModified
            response.headers[.contentLength] = nil
            response.body = ResponseBody()
        }
        return (response, shared)
    }
}

/// An answer as the routes gave it (status, headers with its ETag, body), before a request's
/// own conditions: what the requests that waited for a call get when it was not kept.
struct RoutedAnswer: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: ByteBuffer

    init(_ response: Response, body: ByteBuffer) {
        (status, headers, self.body) = (response.status, response.headers, body)
    }

    /// This answer to `request`: `304` and no body for a matching `If-None-Match`.
    func response(to request: Request) -> Response {
        if status == .ok, let tags = request.headers[.ifNoneMatch], let etag = headers[.eTag],
            ETag.matches(tags, etag)
        {
            var headers = headers
            headers[.contentLength] = nil
            return Response(status: .notModified, headers: headers, body: ResponseBody())
        }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}

/// Gathers a response body's bytes.
private final class BodyCollector: ResponseBodyWriter {
    var buffer = ByteBuffer()
    func write(_ buffer: ByteBuffer) async throws { self.buffer.writeImmutableBuffer(buffer) }
    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
