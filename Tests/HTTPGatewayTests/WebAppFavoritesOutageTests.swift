import Foundation
import TestSupport
import Testing

/// The web app while the favorites' shared database does not answer: everything else serves.
@Suite("Web app with the favorites' PostgreSQL unreachable", .cleansUp)
struct WebAppFavoritesOutageTests {
    @Test("a character's page is served without its favorite button; the favorites page says why, with a 503")
    func outage() async throws {
        // A port nothing listens on: the database is down from the start.
        let dead = try ReservedPort()
        defer { dead.release() }
        let url = "postgres://rnm:s3cret-word@127.0.0.1:\(dead.port)/rnm?sslmode=disable"
        try await RnmSystem.with(settings: ["RNM_FAVORITES_URL": url, "RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: "http://rnm.test")
            let rick = try await http.get("/app/characters/1")
            #expect(rick.status == 200 && rick.text.contains("<h1>Rick Sanchez</h1>"))
            #expect(!rick.text.contains("Add to favorites") && !rick.text.contains("Remove from favorites"))
            let favorites = try await http.get("/app/favorites")
            #expect(favorites.status == 503, "\(favorites.status)")
            #expect(!favorites.text.contains("s3cret-word"), "\(favorites.text)")
            #expect(favorites.text.contains("the database of its favorites"), "\(favorites.text)")
            #expect(!system.log("characters").contains("s3cret-word"))
        }
    }
}
