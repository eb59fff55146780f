import HTTPTypes
import Hummingbird

/// What every request of the web app's paths gets (the public API's own rules are
/// ``PublicAPIMiddleware``'s): `GET` and `HEAD` on its pages, `POST` on its write paths (405
/// otherwise, with `Allow`), a bounded address (414), and a page, not JSON, for a path it does
/// not have.
struct WebAppMiddleware<Context: RequestContext>: RouterMiddleware {
    /// `RNM_HTTP_MAX_URL_BYTES`: a longer request target is 414, as on the API's paths.
    let maxURLBytes: Int

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        guard WebApp.owns(path) else { return try await next(request, context) }
        let takesPost = WebApp.takesPost(path)
        let allowed = takesPost ? "POST" : "GET, HEAD"
        guard takesPost ? request.method == .post : (request.method == .get || request.method == .head) else {
            var response = WebPage.problem(
                heading: "Not allowed", message: "\(request.method.rawValue) is not allowed here (\(allowed))",
                status: .methodNotAllowed, token: WriteGuard.token(for: request))
            response.headers[.allow] = allowed
            return response
        }
        guard request.uri.description.utf8.count <= maxURLBytes else {
            return WebPage.problem(
                heading: "Too long", message: "the address is over \(maxURLBytes) bytes (RNM_HTTP_MAX_URL_BYTES)",
                status: .uriTooLong, token: WriteGuard.token(for: request))
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
