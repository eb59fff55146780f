import HTTPTypes
import NIOCore
import Telemetry

extension MicroCacheHitHandler {
    /// The largest body sent in the head's buffer.
    private static let copiedBodyBytes = 4096

    /// Writes the stored answer to `request` (with `body`), if there is one and it may be written
    /// here now. GraphQL's answers are found by the request as sent (``SentRequestKey``); a `POST`
    /// is no conditional read (RFC 9110 §13.1.2), as ``GraphQLEndpoint`` answers it.
    func answer(
        _ request: RawRequestHead.HitRequest, body: ByteBuffer, context: ChannelHandlerContext
    ) -> Bool {
        guard passedOn == 0, cache.isEnabled, context.channel.isWritable, drain?.isDraining != true,
            !WebApp.owns(request.target)
        else { return false }
        let key: String? =
            request.graphQL
            ? body.withUnsafeReadableBytes { body in
                SentRequestKey.of(
                    request.method, target: request.target, accept: request.accept, contentType: request.contentType,
                    body: body)
            } : request.target
        let now = ContinuousClock.now
        guard let key, let (entry, storedAt) = cache.lookup(key, now: now) else { return false }
        let traceparent = RequestTrace.traceparent(continuing: request.traceparent)
        let hit = entry.hit(
            request.method == .head ? HTTPRequest.Method.head : .get, acceptEncoding: request.acceptEncoding,
            ifNoneMatch: request.method == .post ? nil : request.ifNoneMatch)
        // A small body is copied after the head: one write through the pipeline, not two (a
        // record's kilobyte costs less to copy than a second write: measured, issue 40).
        let copied = hit.body.map { $0.readableBytes <= Self.copiedBodyBytes } ?? false
        let allocator = context.channel.allocator
        var head: HTTPHeadWriter
        if let start = entry.okHead(for: hit) {
            head = HTTPHeadWriter(continuing: start, allocator: allocator, extra: copied ? hit.length : 0)
            entry.writeAge(storedAt: storedAt, now: now, into: &head)
        } else {
            head = HTTPHeadWriter(status: hit.status, allocator: allocator, extra: copied ? hit.length : 0)
            entry.writeFields(of: hit, storedAt: storedAt, now: now, into: &head)
        }
        PublicHeaders.stamp(&head, publicPath: true, traceparent: traceparent)
        head.add(.date, HTTPDate.now())
        var bytes = head.finish()
        if copied, let body = hit.body {
            bytes.writeImmutableBuffer(body)
            context.write(wrapOutboundOut(bytes), promise: nil)
        } else {
            context.write(wrapOutboundOut(bytes), promise: nil)
            if let body = hit.body { context.write(wrapOutboundOut(body), promise: nil) }
        }
        metrics.cacheHits.increment()
        metrics.answered(route: entry.route, status: hit.status.code, after: ContinuousClock.now - now)
        return true
    }
}
