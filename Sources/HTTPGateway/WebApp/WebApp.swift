import Hummingbird
import Logging
import Messaging
import NIOCore
import RnmAPI

/// rnm's web app on the HTTP front (`/` and `/app/…`): the seed apps' screens, rendered on the
/// server from rnm's caches through the Gateway (never the upstream), with a little script for
/// the sync's progress. Every screen has its own URL; its query string carries the filters and
/// the page. Writes (favorites, refresh, sync) are `POST`s guarded by ``WriteGuard``.
struct WebApp: Sendable {
    let reader: GatewayReader
    let sync: SyncJob
    let writeGuard: WriteGuard
    let logger: Logger

    init(reader: GatewayReader, publicURL: String, logger: Logger) {
        self.reader = reader
        self.sync = SyncJob(reader: reader)
        self.writeGuard = WriteGuard(publicURL: publicURL)
        self.logger = logger
    }

    /// Whether `path` is the web app's (everything else is the public APIs').
    static func owns(_ path: String) -> Bool {
        // Bytes, not `lowercased()`: this runs for every request the HTTP front answers.
        let bytes = path.utf8
        guard bytes.count >= 4, bytes.first == UInt8(ascii: "/") else { return path == "/" }
        return bytes.dropFirst().prefix(3).elementsEqual("app".utf8) { $0 | 0x20 == $1 }
            && (bytes.count == 4 || bytes.dropFirst(4).first == UInt8(ascii: "/"))
    }

    /// The paths that take `POST` (the app's writes, ``WebRoute``).
    static func takesPost(_ path: String) -> Bool { WebRoute.isWrite(path) }

    /// An avatar, as the HTTP front serves it (rnm's cached copy).
    static func avatarPath(_ id: Int) -> String { "/api/character/avatar/\(id).jpeg" }

    /// A university's own page: its country and name in the query.
    static func universityPath(_ university: University) -> String {
        link(WebRoute.university.path, [("country", university.country), ("name", university.name)])
    }

    /// `path?k=v&…`, each key and value percent-encoded.
    static func link(_ path: String, _ pairs: [(String, String)]) -> String {
        QueryString.append(pairs, to: path)
    }

    /// The query parameter that marks a screen reached after a refresh the upstream did not
    /// answer (post/redirect/get: the screen's own address, marked).
    static let notRefreshed = "refresh"

    /// `link` marked as reached after a failed refresh.
    static func markedNotRefreshed(_ link: String) -> String {
        link + (link.contains("?") ? "&" : "?") + "\(notRefreshed)=failed"
    }

    /// What a screen reached after a failed refresh (its `query` marked) says above what rnm
    /// has cached: the service's last upstream error (its health), in the words of the offline
    /// notice after "Not refreshed."; nil for a screen not so reached (and no call is made).
    func notRefreshedNotice(
        _ query: PublicQuery, _ service: ServiceName, _ freshness: Freshness
    ) async -> PageFrame.Notice? {
        guard query.filter(Self.notRefreshed) != nil else { return nil }
        var health: ServiceHealth?
        if let method = RPCMethods.health(of: service) { health = try? await reader.call(method, NoParams()) }
        let why = health?.upstream.lastError ?? freshness.upstreamError
        return PageFrame.staleNotice(freshness, service, because: why, lead: "Not refreshed. ")
    }

    // MARK: - Serving

    /// A page: `body` builds it with the request's form token; a failure of rnm becomes a page
    /// saying so, with the status the API's clients get for it.
    func page(
        _ request: Request, back: String = "/",
        _ body: (WriteGuard.Token) async throws -> Response
    ) async -> Response {
        let token = WriteGuard.token(for: request)
        do {
            return try await body(token)
        } catch {
            if (error as? RPCError)?.code != .notFound {
                logger.notice("page failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            }
            return WebPage.failure(error, back: back, token: token)
        }
    }

    /// A write: its form read (at most 16 KiB), refused with 403 unless it comes from the app's
    /// own pages, else `body` with the form's fields.
    func write(
        _ request: Request, back: String = "/",
        _ body: (PublicQuery, WriteGuard.Token) async throws -> Response
    ) async -> Response {
        var request = request
        let token = WriteGuard.token(for: request)
        let text: String
        do {
            text = String(buffer: try await request.collectBody(upTo: 16_384))
        } catch {
            return WebPage.problem(
                heading: "Refused", message: "the form is over 16 KiB", status: .contentTooLarge, back: back,
                token: token)
        }
        let fields = PublicQuery(text)
        if let refusal = writeGuard.refusal(of: request, fields: fields) {
            return WebPage.problem(heading: "Refused", message: refusal, status: .forbidden, back: back, token: token)
        }
        return await page(request, back: back) { token in try await body(fields, token) }
    }

}
