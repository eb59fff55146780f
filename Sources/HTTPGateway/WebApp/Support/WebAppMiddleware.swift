import HTTPTypes
import Hummingbird

/// What every request of the web app's paths gets (the public API's own rules are
/// ``PublicAPIMiddleware``'s): `GET` and `HEAD`, and `POST` on its write paths (405 otherwise),
/// and a page, not JSON, for a path it does not have.
struct WebAppMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        guard WebApp.owns(path) else { return try await next(request, context) }
        let allowed = WebApp.takesPost(path) ? "POST" : "GET, HEAD"
        guard request.method == .get || request.method == .head || (request.method == .post && allowed == "POST")
        else {
            var response = WebPage.problem(
                heading: "Not allowed", message: "\(request.method.rawValue) is not allowed here (\(allowed))",
                status: .methodNotAllowed, token: WriteGuard.token(for: request))
            response.headers[.allow] = allowed
            return response
        }
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return WebPage.problem(
                heading: "Not found", message: "rnm's app has no page at \(path)", status: .notFound,
                token: WriteGuard.token(for: request))
        }
    }
}
