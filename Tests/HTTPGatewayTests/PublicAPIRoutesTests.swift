import Testing

@testable import HTTPGateway

/// What ``PublicAPIRoutes`` decides from a path alone, matched as the router matches it (Express's
/// way: any letter case, a trailing slash or not), by every reader of it.
@Suite("The route table's paths")
struct PublicAPIRoutesTests {
    @Test("GraphQL's path in any case, with a slash or not: it takes POST, its Allow says so, its GETs share no flight")
    func graphQLPath() {
        for path in ["/graphql", "/GraphQL/", "/GRAPHQL?query=%7Bx%7D"] {
            #expect(PublicAPIRoutes.takesPost(path), "\(path)")
            #expect(PublicAPIRoutes.allowed(path) == "GET, HEAD, POST", "\(path)")
            // Its answers vary by Accept, so the REST reads' shared flight (keyed by the URL
            // alone) would hand one client's media type to another: GraphQL keeps its own.
            let bare = String(path.prefix { $0 != "?" })
            #expect(!ResponseCacheMiddleware<PublicRequestContext>.flies(bare), "\(path)")
        }
        for path in ["/graphqlx", "/api/graphql", "/graph", "/", "/api/character/1"] {
            #expect(!PublicAPIRoutes.takesPost(path), "\(path)")
            #expect(PublicAPIRoutes.allowed(path) == "GET, HEAD", "\(path)")
        }
        #expect(ResponseCacheMiddleware<PublicRequestContext>.flies("/API/character/1/"))
    }
}
