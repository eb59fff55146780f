import HTTPTypes

/// The micro-cache's second key for a GraphQL answer: the request as it was sent (its method's
/// kind, target, `Accept`, `Content-Type` and body, byte for byte), beside the key made of what
/// it asks (``GraphQLEndpoint``'s: media type, operation, variables, query). The request decides
/// the answer's key, so whatever answered one request under the first key answers every request
/// sent the same way: ``MicroCacheHitHandler`` answers a repeated `POST /graphql` from its bytes,
/// with no body decoded, no key encoded and no task (issue 40: 14.5k requests/s through
/// Hummingbird's side, ~0.16× nginx's cached `GET`).
///
/// Both sides make it here, from what each read of the request: a field's value as NIO gives it
/// and as ``RawRequestHead`` trims it may differ in their spaces, and then the bytes' side misses
/// (Hummingbird's side answers); they never tell two different requests apart the wrong way.
enum SentRequestKey {
    /// The key, or nil for a body that is not UTF-8 (made a string, two bodies could meet in the
    /// replacement character: such a body is never a GraphQL request anyway).
    static func of(
        _ method: HTTPRequest.Method, target: String, accept: String?, contentType: String?,
        body: UnsafeRawBufferPointer
    ) -> String? {
        guard let text = String(validating: body, as: UTF8.self) else { return nil }
        // A `HEAD` is answered as the head of the `GET`; no field value holds a control character.
        let kind = method == .post ? "POST" : "GET"
        return "sent\u{0}\(kind)\u{0}\(target)\u{0}\(field(accept))\u{0}\(field(contentType))\u{0}\(text)"
    }

    /// A field's value, or a mark for its absence (a control character: never in a value).
    private static func field(_ value: String?) -> String {
        value ?? "\u{1}"
    }
}
