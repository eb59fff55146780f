import HTTPTypes
import Hummingbird

/// What every HTTPGateway response gets, whatever the route: only GET and HEAD, and POST on the
/// paths that read with it (GraphQL) (405 with `Allow` otherwise; nothing that changes data is
/// served over HTTP; OPTIONS answers a browser's preflight), a bounded request target
/// (414) and the API's own 404 body for an unknown path (`Access-Control-Allow-Origin` is
/// ``PublicHeaders``', stamped with the trace by ``ObservabilityMiddleware``).
struct PublicAPIMiddleware<Context: RequestContext>: RouterMiddleware {
    let maxURLBytes: Int

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        // The web app's paths follow its own rules (``WebAppMiddleware``).
        guard !WebApp.owns(request.uri.path) else { return try await next(request, context) }
        var response: Response
        let takesPost = PublicAPIRoutes.takesPost(request.uri.path)
        let allowed = PublicAPIRoutes.allowed(request.uri.path)
        if request.method == .options {
            // A browser's preflight: what any origin may do here. The headers it asks to send
            // are allowed as asked (as the API's `cors()` does): a GraphQL client adds its own.
            response = Response(
                status: .noContent,
                headers: [
                    .allow: allowed + ", OPTIONS", .accessControlAllowMethods: allowed,
                    .accessControlAllowHeaders: request.headers[.accessControlRequestHeaders] ?? "Content-Type",
                    .accessControlMaxAge: "86400",
                ])
        } else if request.method != .get, request.method != .head, !(takesPost && request.method == .post) {
            response = PublicResponse.error(
                "\(request.method.rawValue) is not allowed: this API only reads (\(allowed))",
                status: .methodNotAllowed, headers: [.allow: allowed])
        } else if request.uri.description.utf8.count > maxURLBytes {
            response = PublicResponse.error(
                "the request target is over \(maxURLBytes) bytes (RNM_HTTP_MAX_URL_BYTES)", status: .uriTooLong)
        } else {
            do {
                response = try await next(request, context)
            } catch let error as HTTPError where error.status == .notFound {
                response = PublicResponse.error(RickAndMortyEndpoints.unknownPath, status: .notFound)
            }
        }
        return response
    }
}
