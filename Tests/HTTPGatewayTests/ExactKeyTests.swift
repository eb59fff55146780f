import Foundation
@testable import HTTPGateway
import TestSupport
import Testing

/// Text that is canonically equivalent but spelled in other bytes is another request: the
/// upstream and SQLite compare bytes, so every cache and single flight in between does too.
@Suite("HTTPGateway: keys compared as bytes", .serialized, .cleansUp)
struct ExactKeyTests {
    /// `Árboles`: precomposed (NFC, as the data spells it) and decomposed (NFD: `A` and a
    /// combining acute accent).
    static let nfc = "%C3%81rboles"
    static let nfd = "A%CC%81rboles"

    @Test("the NFD spelling finds nothing, the NFC one its location, whichever is asked first, on REST and GraphQL")
    func normalisations() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: "http://rnm.test")
            for _ in 0..<2 {  // the second round meets every cache the first one filled
                let decomposed = try await http.get("/api/location/?name=\(Self.nfd)")
                #expect(decomposed.status == 404, "\(decomposed.text)")
                let composed = try await http.get("/api/location/?name=\(Self.nfc)")
                #expect(composed.status == 200 && composed.text.contains("Mentirosos"), "\(composed.text)")
            }
            for spelling in ["A\u{301}rboles", "\u{C1}rboles", "A\u{301}rboles"] {
                let answer = try await http.graphQL(
                    #"{ locations(filter: { name: "\#(spelling)" }) { results { name } } }"#)
                let names = (path(answer.data, "locations", "results") as? [[String: Any]] ?? [])
                    .compactMap { $0["name"] as? String }
                #expect(names == (spelling.unicodeScalars.count == 7 ? ["Árboles Mentirosos"] : []), "\(names)")
            }
            try await http.server.stop()
        }
    }
}
