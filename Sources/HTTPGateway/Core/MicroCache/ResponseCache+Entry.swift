import HTTPTypes
import NIOCore

extension ResponseCache {
    /// A class, not a struct: a hit copies it out of the cache's lock, and a struct's copy
    /// retains and releases each of its seven references (measured at 4% of a hit, issue 40).
    final class Entry: Sendable {
        let body: ByteBuffer
        let contentType: String
        /// The answer's `Age` when stored.
        let age: Int
        /// Its `Cache-Control`, if it had one (an avatar's year).
        let cacheControl: String?
        /// The route it was answered by (`/api/character/{id}`): its metrics' label.
        let route: String
        /// Its `ETag` (``ETag/of(_:)``).
        let etag: String
        /// The body gzipped once, when stored (a JSON answer of 1 KiB or more: list pages), so
        /// that a compressed hit costs no compression.
        let gzipped: ByteBuffer?
        /// Its service's data when the answer was asked for (``DataVersions``): while the service
        /// confirms it unchanged, the answer is repeated past the TTL. Nil: the TTL only.
        let dataVersion: DataVersions.Seen?

        /// The compressed copy's tag (``ETag/gzipped(_:)``).
        let gzippedTag: String?
        /// Its `Vary`: `Accept-Encoding` when there is a compressed copy, and `Accept` before it
        /// for an answer whose media type the request chose (GraphQL's).
        let vary: String?
        /// The head of a `200` (or `HEAD`) of each representation, but its `Age` and what each
        /// request adds: made when stored, so that a hit answered from the request's bytes copies
        /// it (writing its fields one by one was ~5% of a hit's CPU, issue 40).
        private let okHeads: (plain: ByteBuffer, gzipped: ByteBuffer?)

        init(
            body: ByteBuffer, contentType: String, age: Int, cacheControl: String? = nil, route: String,
            etag: String, gzipped: ByteBuffer? = nil, dataVersion: DataVersions.Seen? = nil,
            variesByAccept: Bool = false
        ) {
            self.body = body
            self.dataVersion = dataVersion
            self.contentType = contentType
            self.age = age
            self.cacheControl = cacheControl
            self.route = route
            self.etag = etag
            self.gzipped = gzipped
            let gzippedTag = gzipped.map { _ in ETag.gzipped(etag) }
            self.gzippedTag = gzippedTag
            let varies = [variesByAccept ? "Accept" : nil, gzipped == nil ? nil : "Accept-Encoding"].compactMap { $0 }
            let vary = varies.isEmpty ? nil : varies.joined(separator: ", ")
            self.vary = vary
            func okHead(_ representation: ByteBuffer, tag: String, gzip: Bool) -> ByteBuffer {
                let allocator = ByteBufferAllocator()
                var head = HTTPHeadWriter(status: .ok, allocator: allocator)
                let hit = Hit(status: .ok, gzip: gzip, etag: tag, length: representation.readableBytes, body: nil)
                Self.writeSteadyFields(
                    of: hit, contentType: contentType, cacheControl: cacheControl, vary: vary, into: &head)
                // Kept in a buffer near its own size: the writer's has room for a whole head (512
                // bytes), twice or three times what these hold.
                var kept = allocator.buffer(capacity: head.buffer.readableBytes)
                kept.writeImmutableBuffer(head.buffer)
                return kept
            }
            okHeads = (
                okHead(body, tag: etag, gzip: false),
                gzipped.flatMap { copy in gzippedTag.map { okHead(copy, tag: $0, gzip: true) } }
            )
        }

        /// What it counts against the micro-cache's budget: both representations and their heads
        /// (the heads' buffers whole: made here, their allocation is known).
        var storedBytes: Int {
            body.readableBytes + (gzipped?.readableBytes ?? 0) + okHeads.plain.capacity
                + (okHeads.gzipped?.capacity ?? 0)
        }

        /// The status line and steady fields of `hit` when it is a `200` (``writeSteadyFields``):
        /// the rest of its head is its `Age` and what the request adds.
        func okHead(for hit: Hit) -> ByteBuffer? {
            guard hit.status == .ok else { return nil }
            return hit.gzip ? okHeads.gzipped : okHeads.plain
        }

        /// How this answer repeats to one request: `304` for a matching `If-None-Match`, the
        /// headers alone (with the length) for `HEAD`, the compressed copy for a client that takes
        /// gzip.
        struct Hit {
            var status: HTTPResponse.Status
            /// Whether the compressed copy is the one sent.
            var gzip: Bool
            /// The tag of the representation sent.
            var etag: String
            /// The representation's length.
            var length: Int
            /// What is sent after the head (nil for `304` and `HEAD`).
            var body: ByteBuffer?
        }

        /// How this answer repeats to a `GET` or `HEAD` with these two request fields. Every way a
        /// hit is served asks this, then writes its fields with ``writeFields(of:storedAt:now:into:)``.
        func hit(_ method: HTTPRequest.Method, acceptEncoding: String?, ifNoneMatch: String?) -> Hit {
            let gzip = gzipped != nil && AcceptEncoding.takesGzip(acceptEncoding)
            let representation = gzip ? gzipped ?? body : body
            let tag = gzip ? gzippedTag ?? etag : etag
            if let tags = ifNoneMatch, ETag.matches(tags, tag) {
                return Hit(status: .notModified, gzip: gzip, etag: tag, length: representation.readableBytes, body: nil)
            }
            return Hit(
                status: .ok, gzip: gzip, etag: tag, length: representation.readableBytes,
                body: method == .head ? nil : representation)
        }

        /// The fields of `hit` at `now`, in the order sent: its steady fields
        /// (``writeSteadyFields(of:contentType:cacheControl:hasCopy:into:)``), then the `Age` grown
        /// by the time kept. Written once, for both sinks: `HTTPFields`, and the head's bytes
        /// (``HTTPHeadWriter``).
        func writeFields<Fields: AnswerFields>(
            of hit: Hit, storedAt: ContinuousClock.Instant, now: ContinuousClock.Instant, into fields: inout Fields
        ) {
            Self.writeSteadyFields(
                of: hit, contentType: contentType, cacheControl: cacheControl, vary: vary, into: &fields)
            writeAge(storedAt: storedAt, now: now, into: &fields)
        }

        /// The `Age` at `now`: the answer's when stored, grown by the time kept.
        func writeAge<Fields: AnswerFields>(
            storedAt: ContinuousClock.Instant, now: ContinuousClock.Instant, into fields: inout Fields
        ) {
            fields.add(.age, String(age + Int((now - storedAt).components.seconds)))
        }

        /// The fields of `hit` that stay while it is kept, in the order sent: the type,
        /// `Cache-Status: rnm; hit`, the tag, `Cache-Control`, `Vary` (``vary``),
        /// `Content-Encoding`, and the length (not on a `304`).
        static func writeSteadyFields<Fields: AnswerFields>(
            of hit: Hit, contentType: String, cacheControl: String?, vary: String?, into fields: inout Fields
        ) {
            fields.add(.contentType, contentType)
            fields.add(PublicResponse.cacheStatus, "rnm; hit")
            fields.add(.eTag, hit.etag)
            if let cacheControl { fields.add(.cacheControl, cacheControl) }
            if let vary { fields.add(.vary, vary) }
            if hit.gzip { fields.add(.contentEncoding, "gzip") }
            if hit.status != .notModified { fields.add(.contentLength, String(hit.length)) }
        }

        /// The bytes and headers to send a client that takes gzip or not (`Vary` for both
        /// when there is a compressed copy): a hit's, to a `GET` without conditions.
        func representation(
            gzip: Bool, storedAt: ContinuousClock.Instant, now: ContinuousClock.Instant
        ) -> (body: ByteBuffer, headers: HTTPFields) {
            let hit = hit(.get, acceptEncoding: gzip ? "gzip" : nil, ifNoneMatch: nil)
            var headers = HTTPFields()
            writeFields(of: hit, storedAt: storedAt, now: now, into: &headers)
            return (hit.body ?? body, headers)
        }

        /// This answer to a `GET` or `HEAD` with `request`'s headers, repeated at `now`, as
        /// ``hit(_:acceptEncoding:ifNoneMatch:)`` decides.
        func answer(
            _ method: HTTPRequest.Method, headers request: HTTPFields, storedAt: ContinuousClock.Instant,
            now: ContinuousClock.Instant
        ) -> (status: HTTPResponse.Status, headers: HTTPFields, body: ByteBuffer?) {
            let hit = hit(method, acceptEncoding: request[.acceptEncoding], ifNoneMatch: request[.ifNoneMatch])
            var headers = HTTPFields()
            writeFields(of: hit, storedAt: storedAt, now: now, into: &headers)
            return (hit.status, headers, hit.body)
        }
    }
}
