import RnmAPI
@testable import HTTPGateway
import TestSupport
import Testing

/// Issue 38, "the first hour": what a new user noticed on the web app's screens.
extension WebAppTests {
    @Test("each tab is titled once: rnm alone on the home page, the screen's name then rnm elsewhere")
    func titles() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: "http://rnm.test")
            #expect(try await http.get("/").text.contains("<title>rnm</title>"))
            #expect(try await http.get("/app/stats").text.contains("<title>Statistics · rnm</title>"))
            #expect(try await http.get("/app/offline").text.contains("<title>Offline · rnm</title>"))
            #expect(try await http.get("/app/characters").text.contains("<title>Characters · rnm</title>"))
        }
    }

    @Test("times read as a person reads them, in UTC and saying so, the exact timestamp kept in <time datetime>")
    func times() async throws {
        #expect(TimeText("2026-11-26T19:07:04Z").text == "26 Nov 2026, 19:07 UTC")
        #expect(TimeText("2017-11-04T18:48:46.250Z").text == "4 Nov 2017, 18:48 UTC")
        #expect(TimeText("not a time").text == "not a time")
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: "http://rnm.test")
            let rick = try await http.get("/app/characters/1").text
            #expect(rick.contains(#"<time datetime="2017-11-04T18:48:46.250Z">4 Nov 2017, 18:48 UTC</time>"#))
            #expect(!rick.contains(">2017-11-04T18:48:46.250Z<"))
        }
    }

    @Test("statuses: the cards' labels everywhere (Alive, Dead, Unknown), each bar of the chart its status's colour")
    func statuses() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: "http://rnm.test")
            let stats = try await http.get("/app/stats").text
            for status in CharacterListParams.statuses {
                let label = status.capitalized
                #expect(stats.contains(#"<span class="chart-label">\#(label)</span>"#), "\(label)")
                #expect(stats.contains(#"<rect class="bar status-\#(status)""#), "\(status)")
                #expect(stats.contains(#"<span class="status status-\#(status)">\#(label)</span>"#))
            }
            #expect(!stats.contains(">alive<") && !stats.contains("<text"), "no lower-case label, no SVG text")
            let list = try await http.get("/app/characters").text
            #expect(list.contains(#"<option value="alive">Alive</option>"#))
            #expect(list.contains("Alive · Human"))
        }
    }

    @Test("a country with no universities says why, in rnmctl's words, and that the mirror is not made yet")
    func unknownCountry() async throws {
        try await RnmSystem.with { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: "http://rnm.test")
            let page = try await http.get("/app/universities?country=Atlantis")
            #expect(page.status == 200)
            let sentence = UniversityList.noneIn("Atlantis").replacing("\"", with: "&quot;")
            #expect(page.text.contains("<p>N" + sentence.dropFirst() + ".</p>"), "\(page.text)")
            #expect(page.text.contains(#"<a href="/app/offline">Offline page</a>"#))
            #expect(!page.text.contains("0 of 0"))
        }
    }
}

/// The first banner's sentence (its `<p>`), or nil for a page without one.
func noticeHeadline(_ html: String) -> String? {
    guard let start = html.range(of: #"<div class="notice" role="status"><p>"#) else { return nil }
    return String(html[start.upperBound...].prefix { $0 != "\n" }.split(separator: "</p>").first ?? "")
}
