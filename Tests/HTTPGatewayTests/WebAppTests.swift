import Foundation
import RnmAPI
import Synchronization
@testable import HTTPGateway
import TestSupport
import Testing

/// Issue 27: the seed apps' screens in a browser, rendered on the server from rnm's caches.
@Suite("HTTPGateway: the web app", .serialized, .cleansUp)
struct WebAppTests {
    @Test(
        """
        the characters screen: 20 cards with avatars, the filters as a form, page N of M, the filters kept \
        across pages
        """
    )
    func charactersScreen() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: "http://rnm.test")
            let page = try await http.get("/app/characters")
            #expect(page.status == 200)
            #expect(page.header("content-type") == "text/html; charset=utf-8")
            let policy = try #require(page.header("content-security-policy"))
            #expect(policy.contains("default-src 'self'") && !policy.contains("http"))
            #expect(page.text.components(separatedBy: #"<a class="card""#).count - 1 == 20)
            #expect(page.text.contains(#"alt="Rick Sanchez" width="300" height="300" loading="lazy""#))
            #expect(page.text.contains(#"src="/api/character/avatar/1.jpeg""#))
            #expect(page.text.contains("Page 1 of 25 · 493 characters"))
            #expect(page.text.contains(#"href="/app/characters?page=2" rel="next""#))
            let dead = try await http.get("/app/characters?status=dead&page=2")
            #expect(dead.text.contains(#"<option value="dead" selected>"#))
            #expect(dead.text.contains(#"href="/app/characters?status=dead" rel="prev""#))
            #expect(dead.text.contains(#"href="/app/characters?status=dead&amp;page=3" rel="next""#))
            let named = try await http.get("/app/characters?name=rick")
            #expect(named.text.contains(#"name="name" value="rick""#) && named.text.contains("Rick Sanchez"))
            let none = try await http.get("/app/characters?name=nobody-at-all")
            #expect(none.status == 200 && none.text.contains("Nothing matches these filters."))
            // The page, its style sheet and its script together are well under 100 KB.
            let css = try await http.get("/app/assets/app.css")
            let script = try await http.get("/app/assets/app.js")
            #expect(css.header("cache-control")?.contains("immutable") == true)
            #expect(page.body.count + css.body.count + script.body.count < 100_000)
            let avatar = try await http.get("/api/character/avatar/1.jpeg")
            #expect(avatar.header("cache-control")?.contains("max-age=31536000") == true)
        }
    }

    @Test("a character: every field, origin and location as links, every episode by code, name and air date")
    func characterScreen() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: "http://rnm.test")
            let rick = try await http.get("/app/characters/1")
            #expect(rick.status == 200)
            #expect(rick.text.contains("<h1>Rick Sanchez</h1>"))
            #expect(rick.text.contains(#"<a href="/app/locations/1">Earth (C-137)</a>"#))
            #expect(rick.text.contains(#"<a href="/app/episodes/1">S01E01</a>"#))
            #expect(rick.text.contains("December 2, 2013"))
            #expect(rick.text.contains("Add to favorites"))
            let earth = try await http.get("/app/locations/1")
            #expect(earth.status == 200 && earth.text.contains("Residents (") && earth.text.contains(#"class="card""#))
            let pilot = try await http.get("/app/episodes/1")
            #expect(pilot.status == 200 && pilot.text.contains("S01E01: Pilot") && pilot.text.contains("Rick Sanchez"))
            let missing = try await http.get("/app/characters/99999")
            #expect(missing.status == 404)
            #expect(missing.header("content-type") == "text/html; charset=utf-8" && missing.text.contains("Not found"))
            let nowhere = try await http.get("/app/nothing-here")
            #expect(nowhere.status == 404 && nowhere.text.contains("<h1>Not found</h1>"))
            #expect(try await http.get("/app/characters", method: "PUT").status == 405)
            let getOfAWrite = try await http.get("/app/favorites/2")
            #expect(getOfAWrite.status == 405 && getOfAWrite.header("allow") == "POST")
            #expect(try await http.get("/app/characters/1", method: "HEAD").status == 200)
            let past = try await http.get("/app/characters?page=999")
            #expect(past.status == 404 && past.text.contains(#"href="/app/characters?page=25""#))
            #expect(try await http.get("/app/characters?status=sleeping").status == 404)
            let home = try await http.get("/")
            #expect(home.status == 200 && home.text.contains(#"href="/app/universities""#))
            #expect(try await http.get("/api").header("content-type")?.hasPrefix("application/json") == true)
        }
    }

    @Test("favorites: added and removed from the app's own page; refused (403) from another site or without the token")
    func favorites() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: "http://rnm.test")
            let page = try await http.get("/app/characters/2")
            let cookie = try #require(page.header("set-cookie"))
            #expect(cookie.contains("SameSite=Strict") && cookie.contains("HttpOnly"))
            let token = String(cookie.split(separator: ";")[0].dropFirst("rnm_csrf=".count))
            #expect(page.text.contains(#"name="csrf" value="\#(token)""#))
            let form = Array("csrf=\(token)&action=add".utf8)
            let formHeaders = [
                ("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", "rnm_csrf=\(token)"),
            ]
            // Another site's page posting the same form: refused, nothing changes.
            let crossSite = try await http.get(
                "/app/favorites/2", method: "POST", headers: formHeaders + [("Sec-Fetch-Site", "cross-site")],
                body: form)
            #expect(crossSite.status == 403)
            let otherOrigin = try await http.get(
                "/app/favorites/2", method: "POST", headers: formHeaders + [("Origin", "http://evil.test")], body: form)
            #expect(otherOrigin.status == 403)
            let noToken = try await http.get(
                "/app/favorites/2", method: "POST", headers: [("Cookie", "rnm_csrf=\(token)")],
                body: Array("action=add".utf8))
            #expect(noToken.status == 403)
            // Another browser's token, a null origin, a name that only points here (DNS rebinding).
            let otherToken = try await http.get(
                "/app/favorites/2", method: "POST", headers: formHeaders,
                body: Array("csrf=\(String(repeating: "a", count: 64))&action=add".utf8))
            #expect(otherToken.status == 403)
            let nullOrigin = try await http.get(
                "/app/favorites/2", method: "POST", headers: formHeaders + [("Origin", "null")], body: form)
            #expect(nullOrigin.status == 403)
            let rebound = try await http.get(
                "/app/favorites/2", method: "POST",
                headers: formHeaders + [
                    ("Host", "evil.example:\(http.port)"), ("Origin", "http://evil.example:\(http.port)"),
                ],
                body: form)
            #expect(rebound.status == 403 && rebound.text.contains("not its own"))
            #expect(!(try await http.get("/app/favorites")).text.contains("Morty Smith"))
            // The app's own form.
            let added = try await http.get(
                "/app/favorites/2", method: "POST", headers: formHeaders + [("Sec-Fetch-Site", "same-origin")],
                body: form)
            #expect(added.status == 303 && added.header("location") == "/app/characters/2")
            #expect((try await http.get("/app/favorites")).text.contains("Morty Smith"))
            #expect(
                (try await http.get("/app/characters/2", headers: [("Cookie", "rnm_csrf=\(token)")])).text.contains(
                    "Remove from favorites"))
            let removed = try await http.get(
                "/app/favorites/2", method: "POST", headers: formHeaders,
                body: Array("csrf=\(token)&action=remove".utf8))
            #expect(removed.status == 303)
            #expect(!(try await http.get("/app/favorites")).text.contains("Morty Smith"))
        }
    }

    @Test("the upstream failing: pages say so in words; a service down: a page, not JSON, with 503")
    func offlineNotice() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "0"]) { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: "http://rnm.test")
            #expect(try await http.get("/app/characters/1").status == 200)
            system.characterUpstream.fault = .status(500)
            let stale = try await http.get("/app/characters/1")
            #expect(stale.status == 200)
            #expect(
                stale.text.contains(
                    "The Rick and Morty API answered with an error (HTTP 500); showing data cached at <time datetime="))
            #expect(stale.text.contains("<details><summary>Details</summary><p>upstream answered HTTP 500"))
            system.kill(.characters)
            _ = try await system.process(.characters)?.waitForExit()
            let down = try await http.get("/app/characters/1")
            #expect(down.status == 503 && down.text.contains("not running"))
            #expect(down.header("content-type") == "text/html; charset=utf-8")
        }
    }

    @Test(
        """
        universities: every name whole, each a link; a university's page from the cache with no second \
        upstream request
        """
    )
    func universities() async throws {
        try await RnmSystem.with { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: "http://rnm.test")
            let list = try await http.get("/app/universities?country=United%20Arab%20Emirates")
            #expect(list.status == 200)
            #expect(list.text.contains(">Khalifa University</a>"))
            let asked = system.universityUpstream.requestCount
            let link = try #require(
                list.text.components(separatedBy: #"<a href=""#).dropFirst().first { $0.hasPrefix("/app/university?") })
            let target = String(link.prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
            let one = try await http.get(target)
            #expect(one.status == 200 && one.text.contains("Domains") && one.text.contains("Web pages"))
            #expect(system.universityUpstream.requestCount == asked, "no second upstream request")
            let stats = try await http.get("/app/stats")
            #expect(stats.status == 200 && stats.text.contains("493 characters") && stats.text.contains("<svg"))
        }
    }

    @Test(
        """
        a refresh keeps the filters and the page; the sync runs in the background (a second start meanwhile refused, \
        409) and reports its progress
        """
    )
    func refreshAndSync() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: "http://rnm.test")
            let page = try await http.get("/app/characters?status=dead&page=2")
            let token = try formToken(page)
            let headers = [("Cookie", "rnm_csrf=\(token)")]
            let asked = system.characterUpstream.requestCount
            let refreshed = try await http.get(
                "/app/characters/refresh", method: "POST", headers: headers,
                body: Array("csrf=\(token)&status=dead&page=2".utf8))
            #expect(refreshed.status == 303 && refreshed.header("location") == "/app/characters?status=dead&page=2")
            #expect(system.characterUpstream.requestCount > asked, "a refresh asks the upstream")
            // The sync held at the upstream until the second start below has been refused: it
            // surely comes while the first runs, however slow the machine.
            system.characterUpstream.fault = .hang
            // Then 20 ms an upstream request (31 pages, 493 avatars, 4 at a time): seconds, in
            // which its progress is seen to move.
            system.characterUpstream.latency = .milliseconds(20)
            let started = try await http.get(
                "/app/offline/sync", method: "POST", headers: headers + [("Accept", "application/json")],
                body: Array("csrf=\(token)".utf8))
            #expect(started.status == 202)
            let again = try await http.get(
                "/app/offline/sync", method: "POST", headers: headers + [("Accept", "application/json")],
                body: Array("csrf=\(token)".utf8))
            #expect(again.status == 409, "a second start while one runs is refused: \(again.status) \(again.text)")
            system.characterUpstream.fault = nil
            let seen = Mutex<Set<Int>>([])
            try await waitUntil(120, "the sync finishes") {
                guard let state = try? await http.get("/app/offline/progress"),
                    let object = (try? JSONSerialization.jsonObject(with: Data(state.body))) as? [String: Any]
                else { return false }
                if let done = object["done"] as? Int { seen.withLock { _ = $0.insert(done) } }
                return object["finished"] as? Bool == true && object["running"] as? Bool == false
            }
            let offline = try await http.get("/app/offline")
            #expect(offline.text.contains("Available offline: 493 characters"), "\(offline.text)")
            #expect(offline.text.contains("complete, made"))
            let progress = seen.withLock { $0 }
            #expect(progress.count >= 2, "progress moved: \(progress.sorted())")
        }
    }

    @Test("every value is escaped: markup in a record's text is shown as text, a javascript: web page is not a link")
    func escaping() {
        let university = University(
            name: #"<script>alert("x")</script> & 'co'"#, country: "Atlantis", alphaTwoCode: "AT", stateProvince: nil,
            domains: ["a.test"], webPages: ["javascript:alert(1)", "https://a.test/"])
        let detail = Fresh(
            UniversityDetail(university: university),
            freshness: Freshness(source: .cache, fetchedAt: "2026-01-01T00:00:00Z"))
        let html = WebTemplates.library.render(DetailScreen(detail, csrf: "t"), withTemplate: "detail") ?? ""
        #expect(!html.contains("<script>alert"))
        #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;"))
        #expect(!html.contains("javascript:"))
        #expect(html.contains(#"<a href="https://a.test/""#))
    }
}

/// The form token a page's `Set-Cookie` gave (`rnm_csrf=…`), to send back with a form.
func formToken(_ page: HTTPProbeResponse) throws -> String {
    String(try #require(page.header("set-cookie")).split(separator: ";")[0].dropFirst("rnm_csrf=".count))
}
