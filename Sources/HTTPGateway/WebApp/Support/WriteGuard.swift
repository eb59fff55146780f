import HTTPTypes
import Hummingbird

/// Keeps other web pages from making a user's browser change rnm (CSRF): the app's writes are
/// `POST`s, and one is refused (403) unless it comes from the app's own pages —
/// `Sec-Fetch-Site: same-origin` (or none sent), an `Origin` of this host (or none sent), and
/// the form's `csrf` token equal to the `rnm_csrf` cookie (`SameSite=Strict`, `HttpOnly`), which
/// another site can neither read nor make the browser send.
struct WriteGuard: Sendable {
    /// The host of `RNM_PUBLIC_URL` (lowercased), which the browser may name besides an
    /// address: a write naming any other host name is refused (DNS rebinding: a page of
    /// another site whose name is pointed at 127.0.0.1 would otherwise be "same-origin").
    let publicHost: String?

    init(publicURL: String) {
        publicHost = Self.host(ofAuthority: Self.authority(ofURL: publicURL))
    }

    /// The request's form token: the cookie's, or a new one (then set with the page).
    struct Token: Sendable {
        var value: String
        /// The `Set-Cookie` value, when the browser has no token yet.
        var setCookie: String?
    }

    static let cookieName = "rnm_csrf"

    /// The browser's token, or a new one to set.
    static func token(for request: Request) -> Token {
        if let value = cookie(in: request), isWellFormed(value) { return Token(value: value, setCookie: nil) }
        let value = (0..<4).map { _ in String(UInt64.random(in: .min ... .max), radix: 16) }
            .map { String(repeating: "0", count: 16 - $0.count) + $0 }.joined()
        return Token(value: value, setCookie: "\(cookieName)=\(value); Path=/; SameSite=Strict; HttpOnly")
    }

    /// Why the write `request` with form `fields` is refused, or nil when it is the app's own.
    func refusal(of request: Request, fields: PublicQuery) -> String? {
        guard let authority = request.head.authority, isOwn(authority) else {
            return
                "this form was sent to rnm under a name that is not its own (Host: \(request.head.authority ?? "none"))"
        }
        if let site = request.headers[.secFetchSite], site != "same-origin", site != "none" {
            return "this form was sent from another site (Sec-Fetch-Site: \(site))"
        }
        if let origin = request.headers[.origin], !(origin == "http://\(authority)" || origin == "https://\(authority)")
        {
            return "this form was sent from another origin (\(origin))"
        }
        guard let cookie = Self.cookie(in: request), Self.isWellFormed(cookie), let sent = fields["csrf"],
            Self.constantTimeEqual(cookie, sent)
        else {
            return "this form's token is missing or does not match (reload the page and try again)"
        }
        return nil
    }

    /// Whether `authority` (`host[:port]`) names rnm: an address (127.0.0.1, [::1], any IP
    /// literal), `localhost`, or the host of `RNM_PUBLIC_URL`. A name that only resolves here
    /// (DNS rebinding) is not.
    func isOwn(_ authority: String) -> Bool {
        guard let host = Self.host(ofAuthority: authority) else { return false }
        if host == "localhost" || host == publicHost { return true }
        if host.hasPrefix("[") { return host.hasSuffix("]") }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
    }

    /// `host[:port]` of `scheme://host[:port]/…`.
    static func authority(ofURL url: String) -> String {
        let rest = url.range(of: "://").map { url[$0.upperBound...] } ?? url[...]
        return String(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" })
    }

    /// The host of `host[:port]` (an IPv6 literal with its brackets), lowercased.
    static func host(ofAuthority authority: String) -> String? {
        let lowered = authority.lowercased()
        if lowered.hasPrefix("[") { return lowered.firstIndex(of: "]").map { String(lowered[...$0]) } }
        let host = lowered.prefix { $0 != ":" }
        return host.isEmpty ? nil : String(host)
    }

    private static func cookie(in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for part in header.split(separator: ";") {
                let pair = part.split(separator: "=", maxSplits: 1)
                if pair.count == 2, String(pair[0]).trimmingWhitespace == cookieName {
                    return String(pair[1]).trimmingWhitespace
                }
            }
        }
        return nil
    }

    private static func isWellFormed(_ token: String) -> Bool {
        token.utf8.count == 64 && token.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    private static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

extension HTTPField.Name {
    /// Fetch Metadata: where the request was made from (`same-origin`, `same-site`, `cross-site`, `none`).
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
}
