import HTTPTypes
import Hummingbird

/// What every HTTPGateway response gets, whatever the route: only GET and HEAD (405 with
/// `Allow` otherwise; nothing that changes data is served over HTTP; OPTIONS answers a
/// browser's preflight), a bounded request target
/// (414), the API's own 404 body for an unknown path, and `Access-Control-Allow-Origin: *` as
/// the public API sends it.
struct PublicAPIMiddleware<Context: RequestContext>: RouterMiddleware {
    let maxURLBytes: Int

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response: Response
        if request.method == .options {
            // A browser's preflight: what any origin may do here.
            response = Response(
                status: .noContent,
                headers: [
                    .allow: "GET, HEAD, OPTIONS", .accessControlAllowMethods: "GET, HEAD",
                    .accessControlMaxAge: "86400",
                ])
        } else if request.method != .get, request.method != .head {
            response = PublicResponse.error(
                "\(request.method.rawValue) is not allowed: this API only reads (GET, HEAD)",
                status: .methodNotAllowed, headers: [.allow: "GET, HEAD"])
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
        response.headers[.accessControlAllowOrigin] = "*"
        return response
    }
}
