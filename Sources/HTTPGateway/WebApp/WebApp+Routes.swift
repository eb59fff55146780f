import Hummingbird
import Messaging
import NIOCore
import RnmAPI

extension WebApp {
    /// The app's routes: its screens, its writes, its assets.
    func register(on router: Router<PublicRequestContext>) {
        router.get("/") { request, _ in await home(request) }
        router.get("app") { request, _ in await home(request) }
        router.get("app/assets/app.css") { _, _ in
            WebAssets.response(WebAssets.css, contentType: "text/css; charset=utf-8")
        }
        router.get("app/assets/icon.svg") { _, _ in WebAssets.response(WebAssets.icon, contentType: "image/svg+xml") }
        router.get("favicon.ico") { _, _ in WebAssets.response(WebAssets.icon, contentType: "image/svg+xml") }
        router.get("app/assets/app.js") { _, _ in
            WebAssets.response(WebAssets.javaScript, contentType: "text/javascript; charset=utf-8")
        }
        registerRecords(Character.self, on: router)
        registerRecords(Location.self, on: router)
        registerRecords(Episode.self, on: router)
        router.get("app/characters/:id") { request, context in
            await page(request, back: RecordKind.character.appPath) { token in
                let id = try Self.id(context)
                async let detail = reader.call(RPCMethods.charactersGet, IDParams(id: id))
                async let favorites = reader.call(RPCMethods.favoritesList, NoParams())
                // The character without its favorite button when the favorites cannot be read (their
                // shared database down, -32007): the record is the page's point, and it is cached.
                let favorite = (try? await favorites)?.items.contains { $0.id == id }
                return WebPage.render(
                    "detail", DetailScreen(try await detail, favorite: favorite, csrf: token.value), token: token)
            }
        }
        router.get("app/locations/:id") { request, context in
            await page(request, back: RecordKind.location.appPath) { token in
                let detail = try await reader.call(RPCMethods.locationsGet, IDParams(id: try Self.id(context)))
                return WebPage.render("detail", DetailScreen(detail, csrf: token.value), token: token)
            }
        }
        router.get("app/episodes/:id") { request, context in
            await page(request, back: RecordKind.episode.appPath) { token in
                let detail = try await reader.call(RPCMethods.episodesGet, IDParams(id: try Self.id(context)))
                return WebPage.render("detail", DetailScreen(detail, csrf: token.value), token: token)
            }
        }
        router.post("app/characters/refresh") { request, _ in
            await write(request, back: RecordKind.character.appPath) { fields, token in
                let params = CharacterListParams(page: fields.page, filter: fields.filter)
                let answer = try await reader.call(RPCMethods.charactersRefresh, params)
                let kind = RecordKind.character
                let list = ListScreen.link(kind, given: ListScreen.filters(kind, fields), page: fields.page)
                // Success or not, the browser ends on the list's own address (post/redirect/get);
                // a failed refresh is marked there, since the list's answer, fresh from the
                // cache, would not say it.
                return WebPage.redirect(answer.freshness.stale ? Self.markedNotRefreshed(list) : list)
            }
        }
        registerFavoritesAndStats(on: router)
        registerUniversities(on: router)
        registerOffline(on: router)
    }

    private func home(_ request: Request) async -> Response {
        await page(request) { token in
            WebPage.render("home", HomeScreen(csrf: token.value), token: token)
        }
    }

    /// A kind's list screen.
    private func registerRecords<Record: CardRecord>(_ type: Record.Type, on router: Router<PublicRequestContext>) {
        router.get(RouterPath(stringLiteral: String(Record.kind.appPath.dropFirst()))) { request, _ in
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

    private func registerFavoritesAndStats(on router: Router<PublicRequestContext>) {
        router.get("app/favorites") { request, _ in
            await page(request) { token in
                let list = try await reader.call(RPCMethods.favoritesList, NoParams())
                return WebPage.render("favorites", FavoritesScreen(list, csrf: token.value), token: token)
            }
        }
        router.post("app/favorites/:id") { request, context in
            await write(request, back: "/app/favorites") { fields, _ in
                let id = try Self.id(context)
                let method = fields["action"] == "remove" ? RPCMethods.favoritesRemove : RPCMethods.favoritesAdd
                _ = try await reader.call(method, IDParams(id: id))
                return WebPage.redirect("\(RecordKind.character.appPath)/\(id)")
            }
        }
        router.get("app/stats") { request, _ in
            await page(request) { token in
                let stats = try await reader.call(RPCMethods.charactersStats, NoParams())
                return WebPage.render("stats", StatsScreen(stats, csrf: token.value), token: token)
            }
        }
    }

    private func registerUniversities(on router: Router<PublicRequestContext>) {
        router.get("app/universities") { request, _ in
            await page(request) { token in
                let query = PublicQuery(request.uri.query)
                let params = UniversityListParams(country: query.filter("country"), name: query.filter("name"))
                let list = try await reader.call(RPCMethods.universitiesList, params)
                var screen = UniversitiesScreen(list, name: params.name, csrf: token.value)
                if let notice = await notRefreshedNotice(query, .universities, list.freshness) {
                    screen.frame.notice = notice
                }
                return WebPage.render("universities", screen, token: token)
            }
        }
        router.post("app/universities/refresh") { request, _ in
            await write(request, back: "/app/universities") { fields, token in
                let params = UniversityListParams(country: fields.filter("country"), name: fields.filter("name"))
                let list = try await reader.call(RPCMethods.universitiesRefresh, params)
                let screen = Self.link(
                    "/app/universities", [("country", list.country)] + (params.name.map { [("name", $0)] } ?? []))
                return WebPage.redirect(list.freshness.stale ? Self.markedNotRefreshed(screen) : screen)
            }
        }
        router.get("app/university") { request, _ in
            await page(request, back: "/app/universities") { token in
                let query = PublicQuery(request.uri.query)
                guard let name = query.filter("name") else {
                    return WebPage.problem(
                        heading: "Which university?", message: "the link names no university (name=…)",
                        status: .badRequest,
                        back: "/app/universities", token: token)
                }
                let detail = try await reader.call(
                    RPCMethods.universitiesGet, UniversityGetParams(name: name, country: query.filter("country")))
                return WebPage.render("detail", DetailScreen(detail, csrf: token.value), token: token)
            }
        }
    }

    private func registerOffline(on router: Router<PublicRequestContext>) {
        router.get("app/offline") { request, _ in
            await page(request) { token in
                async let characters = Self.outcome { try await reader.call(RPCMethods.charactersHealth, NoParams()) }
                async let universities = Self.outcome {
                    try await reader.call(RPCMethods.universitiesHealth, NoParams())
                }
                let health: [(String, Result<ServiceHealth, any Error>)] = [
                    ("Characters, locations, episodes", await characters), ("Universities", await universities),
                ]
                return WebPage.render(
                    "offline", OfflineScreen(health: health, sync: sync.current, csrf: token.value), token: token)
            }
        }
        router.post("app/offline/sync") { request, _ in
            await write(request, back: "/app/offline") { _, _ in
                let started = sync.start()
                guard request.headers[.accept]?.contains("application/json") == true else {
                    return WebPage.redirect("/app/offline")
                }
                return Self.json(["started": started], status: started ? .accepted : .conflict)
            }
        }
        router.get("app/offline/progress") { _, _ in
            Self.json(sync.current, status: .ok)
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
        guard let text = context.parameters.get("id"), let id = Int(text), IDSegment.range.contains(id) else {
            throw RPCError(.notFound, "there is no such record", service: ServiceName.gateway.rawValue)
        }
        return id
    }
}
