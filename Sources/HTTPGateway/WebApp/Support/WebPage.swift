import Hummingbird
import Messaging
import Mustache
import NIOCore
import RnmAPI

/// A rendered page as a response: HTML, the security headers every page carries, and the
/// form token's cookie when the browser has none yet.
enum WebPage {
    /// Everything from rnm itself: no other origin may give a script, a style, an image or
    /// take a form; no page may frame these.
    static let contentSecurityPolicy =
        "default-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

    static func render(
        _ template: String, _ model: Any, status: HTTPResponse.Status = .ok, token: WriteGuard.Token
    ) -> Response {
        let html = WebTemplates.library.render(model, withTemplate: template) ?? ""
        var headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8", .contentSecurityPolicy: contentSecurityPolicy,
            .xContentTypeOptions: "nosniff", .referrerPolicy: "same-origin", .cacheControl: "no-store",
        ]
        if let cookie = token.setCookie { headers[.setCookie] = cookie }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// `303 See Other` to `location` (after a form's POST: a reload does not post again).
    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// A page saying what went wrong, with the status the API's clients get for it.
    static func failure(_ error: any Error, back: String, token: WriteGuard.Token) -> Response {
        let (message, status, headers) = PublicResponse.describe(error)
        var response = problem(
            heading: status == .notFound ? "Not found" : "rnm cannot show this now", message: message, status: status,
            back: back, token: token)
        response.headers.append(contentsOf: headers)
        return response
    }

    struct Problem {
        var frame: PageFrame
        var heading: String
        var message: String
        var back: String
    }

    static func problem(
        heading: String, message: String, status: HTTPResponse.Status, back: String = "/", token: WriteGuard.Token
    ) -> Response {
        render(
            "error",
            Problem(
                frame: PageFrame(title: heading, current: nil, csrf: token.value), heading: heading, message: message,
                back: back), status: status, token: token)
    }
}
