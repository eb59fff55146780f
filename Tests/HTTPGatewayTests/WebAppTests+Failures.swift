import Foundation
import RnmAPI
@testable import HTTPGateway
import TestSupport
import Testing

/// The upstreams failing under a refresh and a sync: the screens say so in words.
extension WebAppTests {
    @Test(
        "a refresh the upstream does not answer ends on the screen's own address (303), which says why and since when"
    )
    func failedRefresh() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: "http://rnm.test")
            let page = try await http.get("/app/characters?status=dead&page=2")
            _ = try await http.get("/app/universities?country=Japan")
            let token = try formToken(page)
            let headers = [("Cookie", "rnm_csrf=\(token)")]
            system.characterUpstream.fault = .down
            system.universityUpstream.fault = .down
            for (target, form, screen) in [
                ("/app/characters/refresh", "status=dead&page=2", "/app/characters?status=dead&page=2&refresh=failed"),
                ("/app/universities/refresh", "country=Japan", "/app/universities?country=Japan&refresh=failed"),
            ] {
                let refreshed = try await http.get(
                    target, method: "POST", headers: headers, body: Array("csrf=\(token)&\(form)".utf8))
                // Post/redirect/get: a reload shows the screen again, never posts again.
                #expect(refreshed.status == 303 && refreshed.header("location") == screen, "\(refreshed.status)")
                let shown = try await http.get(screen)
                #expect(shown.status == 200)
                let api = target.contains("universities") ? "The universities API" : "The Rick and Morty API"
                let headline = try #require(noticeHeadline(shown.text), "\(target)")
                #expect(
                    headline.hasPrefix("Not refreshed. \(api) could not be reached; showing data cached at <time "),
                    "\(headline)")
                // libcurl's words stay a detail, never the headline.
                #expect(!headline.contains("connect") && !headline.contains("127.0.0.1"), "\(headline)")
                #expect(shown.text.contains("<details><summary>Details</summary><p>upstream unreachable"))
            }
            // Without the mark, the same screen is the cached list, saying nothing of a refresh.
            #expect(!(try await http.get("/app/characters?status=dead&page=2").text.contains("Not refreshed")))
        }
    }

    @Test("a sync the upstream does not answer says what it could not fetch and that the mirror stays, as rnmctl does")
    func failedSync() async throws {
        try await RnmSystem.with { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: "http://rnm.test")
            let page = try await http.get("/app/offline")
            let token = try formToken(page)
            system.characterUpstream.fault = .down
            let started = try await http.get(
                "/app/offline/sync", method: "POST",
                headers: [("Cookie", "rnm_csrf=\(token)"), ("Accept", "application/json")],
                body: Array("csrf=\(token)".utf8))
            #expect(started.status == 202)
            try await waitUntil(60, "the sync ends") {
                guard let state = try? await http.get("/app/offline/progress"),
                    let object = (try? JSONSerialization.jsonObject(with: Data(state.body))) as? [String: Any]
                else { return false }
                return object["finished"] as? Bool == true && object["running"] as? Bool == false
            }
            let offline = try await http.get("/app/offline").text
            #expect(offline.contains("The sync could not fetch"), "\(offline)")
            // The upstream's failure in words; libcurl's only under Details.
            let said = try #require(offline.split(separator: "<p data-progress-text").last)
            let summary = said.split(separator: "</p>").first ?? ""
            #expect(summary.contains("the Rick and Morty API could not be reached"), "\(summary)")
            #expect(!summary.contains("Failed to connect") && !summary.contains("Couldn't"), "\(summary)")
            #expect(said.contains("<details><summary>Details</summary>upstream unreachable"))
            #expect(offline.contains("the previous mirror stays in force, try again"))
            #expect(!offline.contains("nothing cached"))
        }
    }
}
