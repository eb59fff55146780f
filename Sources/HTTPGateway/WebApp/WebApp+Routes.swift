import Hummingbird
import Messaging
import NIOCore
import RnmAPI

extension WebApp {
    /// What answers a route.
    typealias Handler = @Sendable (Request, PublicRequestContext) async -> Response

    /// The app's routes: every ``WebRoute`` at its path and method, each answered by
    /// ``handler(for:)`` (an exhaustive switch: a new case is served or does not compile).
    func register(on router: Router<PublicRequestContext>) {
        for route in WebRoute.all {
            router.on(RouterPath(stringLiteral: route.pattern), method: route.method, use: handler(for: route))
        }
        // Other names browsers and people use for two of them.
        router.get("app", use: handler(for: .home))
        router.get("favicon.ico", use: handler(for: .icon))
    }

    private func handler(for route: WebRoute) -> Handler {
        switch route {
        case .home: { request, _ in await home(request) }
        case .list(.character): listHandler(Character.self)
        case .list(.location): listHandler(Location.self)
        case .list(.episode): listHandler(Episode.self)
        case .record(let kind, _): { request, context in await record(kind, request, context) }
        case .refreshCharacters: { request, _ in await refreshCharacters(request) }
        case .favorites: favoritesHandler()
        case .favorite: favoriteHandler()
        case .stats: statsHandler()
        case .universities: universitiesHandler()
        case .refreshUniversities: refreshUniversitiesHandler()
        case .university: universityHandler()
        case .offline: offlineHandler()
        case .sync: syncHandler()
        case .syncProgress: { _, _ in Self.json(sync.current, status: .ok) }
        case .stylesheet: { _, _ in WebAssets.response(WebAssets.css, contentType: "text/css; charset=utf-8") }
        case .script:
            { _, _ in WebAssets.response(WebAssets.javaScript, contentType: "text/javascript; charset=utf-8") }
        case .icon: { _, _ in WebAssets.response(WebAssets.icon, contentType: "image/svg+xml") }
        }
    }

    /// A record's own page.
    private func record(_ kind: RecordKind, _ request: Request, _ context: PublicRequestContext) async -> Response {
        await page(request, back: kind.appPath) { token in
            let id = try Self.id(context)
            switch kind {
            case .character:
                async let detail = reader.call(RPCMethods.charactersGet, IDParams(id: id))
                async let favorites = reader.call(RPCMethods.favoritesList, NoParams())
                // The character without its favorite button when the favorites cannot be read (their
                // shared database down, -32007): the record is the page's point, and it is cached.
                let favorite = (try? await favorites)?.items.contains { $0.id == id }
                return WebPage.render(
                    "detail", DetailScreen(try await detail, favorite: favorite, csrf: token.value), token: token)
            case .location:
                let detail = try await reader.call(RPCMethods.locationsGet, IDParams(id: id))
                return WebPage.render("detail", DetailScreen(detail, csrf: token.value), token: token)
            case .episode:
                let detail = try await reader.call(RPCMethods.episodesGet, IDParams(id: id))
                return WebPage.render("detail", DetailScreen(detail, csrf: token.value), token: token)
            }
        }
    }

    /// Pull-to-refresh: success or not, the browser ends on the list's own address
    /// (post/redirect/get); a failed refresh is marked there, since the list's answer, fresh
    /// from the cache, would not say it.
    private func refreshCharacters(_ request: Request) async -> Response {
        await write(request, back: RecordKind.character.appPath) { fields, token in
            let params = CharacterListParams(page: fields.page, filter: fields.filter)
            let answer = try await reader.call(RPCMethods.charactersRefresh, params)
            let kind = RecordKind.character
            let list = ListScreen.link(kind, given: ListScreen.filters(kind, fields), page: fields.page)
            return WebPage.redirect(answer.freshness.stale ? Self.markedNotRefreshed(list) : list)
        }
    }

    private func home(_ request: Request) async -> Response {
        await page(request) { token in
            WebPage.render("home", HomeScreen(csrf: token.value), token: token)
        }
    }

    /// A kind's list screen.
    private func listHandler<Record: CardRecord>(_ type: Record.Type) -> Handler {
        { request, _ in

            await page(request) { token in
                let query = PublicQuery(request.uri.query)
                let kind = Record.kind
                guard !query.matchesNothing(in: kind) else {
                    return WebPage.problem(
                        heading: "Nothing here", message: "no \(kind.rawValue) matches these filters and this page",
                        status: .notFound, back: kind.appPath, token: token)
                }
                let answer = try await reader.list(
                    Record.self, Record.ListParamsType(page: query.page, filter: query.filter))
                if answer.page > answer.pages, answer.pages > 0 {
                    let last = ListScreen.link(kind, given: ListScreen.filters(kind, query), page: answer.pages)
                    return WebPage.problem(
                        heading: "Nothing here", message: "there are \(answer.pages) pages of these \(kind.plural)",
                        status: .notFound, back: last, token: token)
                }
                var screen = ListScreen(Record.self, page: answer, query: query, csrf: token.value)
                if let notice = await notRefreshedNotice(query, .characters, answer.freshness) {
                    screen.frame.notice = notice
                }
                return WebPage.render("list", screen, token: token)
            }
        }
    }

    /// The favorites screen.
    private func favoritesHandler() -> Handler {
        { request, _ in
            await page(request) { token in
                let list = try await reader.call(RPCMethods.favoritesList, NoParams())
                return WebPage.render("favorites", FavoritesScreen(list, csrf: token.value), token: token)
            }
        }
    }

    /// A favorite added or removed; the browser ends on the character's page.
    private func favoriteHandler() -> Handler {
        { request, context in
            await write(request, back: WebRoute.favorites.path) { fields, _ in
                let id = try Self.id(context)
                let method = fields["action"] == "remove" ? RPCMethods.favoritesRemove : RPCMethods.favoritesAdd
                _ = try await reader.call(method, IDParams(id: id))
                return WebPage.redirect(WebRoute.record(.character, id: id).path)
            }
        }
    }

    /// The statistics screen.
    private func statsHandler() -> Handler {
        { request, _ in
            await page(request) { token in
                let stats = try await reader.call(RPCMethods.charactersStats, NoParams())
                return WebPage.render("stats", StatsScreen(stats, csrf: token.value), token: token)
            }
        }
    }

    /// A country's universities.
    private func universitiesHandler() -> Handler {
        { request, _ in
            await page(request) { token in
                let query = PublicQuery(request.uri.query)
                let params = UniversityListParams(country: query.filter("country"), name: query.filter("name"))
                let list = try await reader.call(RPCMethods.universitiesList, params)
                // An empty country: whether the mirror is made yet, for the explanation.
                var mirrorComplete: Bool?
                if UniversitiesScreen.countryIsEmpty(list) {
                    let health = try? await reader.call(RPCMethods.universitiesHealth, NoParams())
                    mirrorComplete = health.map { $0.mirror?.complete == true }
                }
                var screen = UniversitiesScreen(
                    list, name: params.name, mirrorComplete: mirrorComplete, csrf: token.value)
                if let notice = await notRefreshedNotice(query, .universities, list.freshness) {
                    screen.frame.notice = notice
                }
                return WebPage.render("universities", screen, token: token)
            }
        }
    }

    /// A country's universities fetched again; the browser ends on their screen (marked when the
    /// upstream did not answer).
    private func refreshUniversitiesHandler() -> Handler {
        { request, _ in
            await write(request, back: WebRoute.universities.path) { fields, token in
                let params = UniversityListParams(country: fields.filter("country"), name: fields.filter("name"))
                let list = try await reader.call(RPCMethods.universitiesRefresh, params)
                let screen = Self.link(
                    WebRoute.universities.path,
                    [("country", list.country)] + (params.name.map { [("name", $0)] } ?? []))
                return WebPage.redirect(list.freshness.stale ? Self.markedNotRefreshed(screen) : screen)
            }
        }
    }

    /// One university.
    private func universityHandler() -> Handler {
        { request, _ in
            await page(request, back: WebRoute.universities.path) { token in
                let query = PublicQuery(request.uri.query)
                guard let name = query.filter("name") else {
                    return WebPage.problem(
                        heading: "Which university?", message: "the link names no university (name=…)",
                        status: .badRequest,
                        back: WebRoute.universities.path, token: token)
                }
                let detail = try await reader.call(
                    RPCMethods.universitiesGet, UniversityGetParams(name: name, country: query.filter("country")))
                return WebPage.render("detail", DetailScreen(detail, csrf: token.value), token: token)
            }
        }
    }

    /// The offline mirror and the upstreams.
    private func offlineHandler() -> Handler {
        { request, _ in
            await page(request) { token in
                async let characters = Self.outcome {
                    try await reader.call(RPCMethods.charactersHealth, NoParams())
                }
                async let universities = Self.outcome {
                    try await reader.call(RPCMethods.universitiesHealth, NoParams())
                }
                let health: [(String, ServiceName, Result<ServiceHealth, any Error>)] = [
                    ("Characters, locations, episodes", .characters, await characters),
                    ("Universities", .universities, await universities),
                ]
                return WebPage.render(
                    "offline", OfflineScreen(health: health, sync: sync.current, csrf: token.value), token: token)
            }
        }
    }

    /// Both syncs started (JSON to the page's script, else back to the Offline screen).
    private func syncHandler() -> Handler {
        { request, _ in
            await write(request, back: WebRoute.offline.path) { _, _ in
                let started = sync.start()
                guard request.headers[.accept]?.contains("application/json") == true else {
                    return WebPage.redirect(WebRoute.offline.path)
                }
                return Self.json(["started": started], status: started ? .accepted : .conflict)
            }
        }
    }

    private static func outcome<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    private static func json(_ value: some Encodable, status: HTTPResponse.Status) -> Response {
        let bytes = (try? JSONCoding.encode(value)) ?? ByteBuffer(string: "{}")
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: bytes))
    }

    /// The `:id` of the path, a record's id (anything else is not found).
    static func id(_ context: PublicRequestContext) throws -> Int {
        guard let text = context.parameters.get("id"), let id = Int(text), RecordKind.ids.contains(id) else {
            throw RPCError(.notFound, "there is no such record", service: ServiceName.gateway.rawValue)
        }
        return id
    }
}
