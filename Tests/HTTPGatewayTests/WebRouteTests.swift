import Foundation
@testable import HTTPGateway
import TestSupport
import Testing

/// Issue 37: the web app's route table is the one place its paths are written, and every one
/// of them is served.
@Suite("HTTPGateway: the web app's route table", .serialized, .cleansUp)
struct WebRouteTests {
    @Test("every WebRoute answers at its path and method (a write without the form's token is a 403, not a 404)")
    func everyRouteAnswers() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.start(gatewaySocket: system.gatewaySocket, publicURL: "")
            for route in WebRoute.all {
                let target = route == .university ? route.path + "?country=Japan&name=Kyoto%20University" : route.path
                let answer = try await http.get(target, method: route.method.rawValue)
                if route.method == .post {
                    #expect(answer.status == 403, "\(route): \(answer.status)")
                } else {
                    #expect(answer.status == 200, "\(route) at \(target): \(answer.status)")
                }
                // The other method is not this route's: a write is never a GET.
                if route.method == .post {
                    #expect(try await http.get(route.path).status != 200, "GET \(route.path)")
                }
            }
            // The other names of two of them.
            #expect(try await http.get("/app").status == 200)
            #expect(try await http.get("/favicon.ico").status == 200)
            // Every link of the bar is a screen of the table, each titled by its label.
            let home = try await http.get("/")
            for screen in WebRoute.screens {
                #expect(home.text.contains("href=\"\(screen.route.path)\""), "the bar links \(screen.label)")
                let page = try await http.get(screen.route.path)
                #expect(page.text.contains("<title>\(screen.label)"), "\(screen.label)'s title")
            }
            // The forms post where the table says (a template reads only stored properties: an
            // action left empty posts the form to the page itself).
            let forms = [
                ("/app/characters/1", WebRoute.favorite(id: 1)), ("/app/offline", .sync),
                ("/app/universities?country=Japan", .refreshUniversities), ("/app/characters", .refreshCharacters),
            ]
            for (page, write) in forms {
                let text = try await http.get(page).text
                #expect(text.contains("method=\"post\" action=\"\(write.path)\""), "\(page) posts to \(write.path)")
            }
            #expect(WebRoute.isWrite("/APP/Favorites/12/") && !WebRoute.isWrite("/app/favorites/x"))
            #expect(!WebRoute.isWrite("/app/favorites") && WebRoute.isWrite("/app/offline/sync"))
        }
    }
}
