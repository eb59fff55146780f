import HTTPTypes

/// What every answer of the HTTP front carries, whichever path gives it (the router's
/// middleware, or a micro-cache hit answered where it is read): written once, here.
enum PublicHeaders {
    /// `Access-Control-Allow-Origin: *` on the public APIs' paths, as the public APIs send it;
    /// not on the web app's pages (same origin only) or on ``PublicAPIRoutes/privatePaths``
    /// (metrics and probes: no other origin's page should read them).
    static func allowsAnyOrigin(_ path: String) -> Bool {
        !WebApp.owns(path)
            && !PublicAPIRoutes.privatePaths.contains(PublicAPIMiddleware<PublicRequestContext>.routePath(path))
    }

    /// Stamps `headers` of the answer to `path` with the request's trace (its `traceparent`,
    /// continued or new) and, on a public API's path, `Access-Control-Allow-Origin: *`.
    static func stamp(_ headers: inout HTTPFields, path: String, traceparent: String) {
        headers[.traceparent] = traceparent
        if allowsAnyOrigin(path) { headers[.accessControlAllowOrigin] = "*" }
    }
}
