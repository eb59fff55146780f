import HTTPTypes

/// What every answer of the HTTP front carries, whichever path gives it (the router's
/// middleware, or a micro-cache hit answered where it is read): written once, here.
enum PublicHeaders {
    /// Stamps `headers` of the answer to `path` with the request's trace (its `traceparent`,
    /// continued or new) and, on a public API's path (``PublicAPIRoutes/isPublicAPI(_:)``),
    /// `Access-Control-Allow-Origin: *`, as the public APIs send it.
    static func stamp<Fields: AnswerFields>(_ headers: inout Fields, path: String, traceparent: String) {
        stamp(&headers, publicPath: PublicAPIRoutes.isPublicAPI(path), traceparent: traceparent)
    }

    /// As ``stamp(_:path:traceparent:)``, the path already known to be a public API's or not: a
    /// micro-cache hit's always is (``ResponseCache/mayKeep(_:)`` keeps no other), and its fast
    /// path does not pay a lowercased copy of the path per hit to find it out again.
    static func stamp<Fields: AnswerFields>(_ headers: inout Fields, publicPath: Bool, traceparent: String) {
        headers.add(.traceparent, traceparent)
        if publicPath { headers.add(.accessControlAllowOrigin, "*") }
    }
}
