import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// A short-lived cache of finished answers in front of the routes (a micro-cache, as HTTP
/// fronts keep): a `GET` whose answer came fresh from rnm's cache (`Cache-Status: rnm; hit`)
/// is answered again from memory for `ttl`, without a call to the Gateway. Nothing else is
/// kept: not a fetch (`fwd=miss`), not a stale answer, not an error. Bounded by `maxBytes`,
/// oldest first out; a `ttl` of zero turns it off.
final class ResponseCache: Sendable {
    struct Entry: Sendable {
        var body: ByteBuffer
        var contentType: String
        /// The answer's `Age` when stored, and when that was.
        var age: Int
        var storedAt: ContinuousClock.Instant
        var size: Int
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Keys in the order stored, for eviction (a key stored again appears twice; the
        /// stale position is skipped when it comes up).
        var order: [(key: String, storedAt: ContinuousClock.Instant)] = []
        var head = 0
        var bytes = 0
    }

    let ttl: Duration
    let maxBytes: Int
    private let state = Mutex(State())

    init(ttl: Duration, maxBytes: Int) {
        self.ttl = ttl
        self.maxBytes = maxBytes
    }

    var isEnabled: Bool { ttl > .zero && maxBytes > 0 }

    /// The entry for `key` while it is younger than `ttl`.
    func lookup(_ key: String, now: ContinuousClock.Instant = .now) -> Entry? {
        state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            guard now - entry.storedAt < ttl else {
                state.entries[key] = nil
                state.bytes -= entry.size
                return nil
            }
            return entry
        }
    }

    /// Keeps `body` for `key`, evicting the oldest entries past `maxBytes`.
    func store(_ key: String, body: ByteBuffer, contentType: String, age: Int, now: ContinuousClock.Instant = .now) {
        let size = body.readableBytes + key.utf8.count + 64
        guard isEnabled, size <= maxBytes / 4 else { return }
        state.withLock { state in
            if let old = state.entries[key] { state.bytes -= old.size }
            state.entries[key] = Entry(body: body, contentType: contentType, age: age, storedAt: now, size: size)
            state.bytes += size
            state.order.append((key, now))
            while state.bytes > maxBytes, state.head < state.order.count {
                let (oldest, storedAt) = state.order[state.head]
                state.head += 1
                if let entry = state.entries[oldest], entry.storedAt == storedAt {
                    state.entries[oldest] = nil
                    state.bytes -= entry.size
                }
            }
            // Forget the positions already passed once they are half the list.
            if state.head > 1024, state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
        }
    }
}

/// Serves `GET`/`HEAD` from the ``ResponseCache`` and fills it with fresh cached answers.
struct ResponseCacheMiddleware<Context: RequestContext>: RouterMiddleware {
    let cache: ResponseCache

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard cache.isEnabled, request.method == .get || request.method == .head else { return try await next(request, context) }
        let key = request.uri.description
        let now = ContinuousClock.now
        if let entry = cache.lookup(key, now: now) {
            let elapsed = Int((now - entry.storedAt).components.seconds)
            var headers: HTTPFields = [.contentType: entry.contentType, PublicResponse.cacheStatus: "rnm; hit", .age: String(entry.age + elapsed)]
            if request.method == .head {
                headers[.contentLength] = String(entry.body.readableBytes)
                return Response(status: .ok, headers: headers, body: ResponseBody())
            }
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: entry.body))
        }
        var response = try await next(request, context)
        guard request.method == .get, response.status == .ok, response.headers[PublicResponse.cacheStatus] == "rnm; hit",
              let contentType = response.headers[.contentType], let length = response.body.contentLength, length <= cache.maxBytes / 4
        else { return response }
        let collector = BodyCollector()
        try await response.body.write(collector)
        response.body = ResponseBody(byteBuffer: collector.buffer)
        cache.store(key, body: collector.buffer, contentType: contentType, age: response.headers[.age].flatMap { Int($0) } ?? 0, now: now)
        return response
    }
}

/// Gathers a response body's bytes.
private final class BodyCollector: ResponseBodyWriter {
    var buffer = ByteBuffer()
    func write(_ buffer: ByteBuffer) async throws { self.buffer.writeImmutableBuffer(buffer) }
    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
