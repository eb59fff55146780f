import Foundation
import RnmAPI
import Testing

/// The protocol's timestamps, written and read without Foundation's calendars.
@Suite("RFC 3339 timestamps")
struct RFC3339Tests {
    @Test("a known instant, both ways; fractions of a second are dropped, as the protocol writes whole seconds")
    func knownInstant() {
        let instant = Date(timeIntervalSince1970: 1_795_261_892.75)
        #expect(instant.rfc3339 == "2026-11-21T11:51:32Z")
        #expect(Date(rfc3339: "2026-11-21T11:51:32Z") == Date(timeIntervalSince1970: 1_795_261_892))
        #expect(Date(timeIntervalSince1970: 0).rfc3339 == "1970-01-01T00:00:00Z")
    }

    @Test("the same text as Foundation's ISO 8601 style, for instants across centuries and leap days")
    func matchesFoundation() {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: false, timeZone: .gmt)
        var generator = SystemRandomNumberGenerator()
        for seconds in [0, 951_782_400, 4_107_542_399]
            + (0..<500).map({ _ in Int.random(in: 0...4_102_444_800, using: &generator) })
        {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(date.rfc3339 == date.formatted(style))
            #expect(Date(rfc3339: date.rfc3339) == date)
        }
    }

    @Test(
        "anything but the one layout is not a date",
        arguments: [
            "", "2026-11-21", "2026-11-21T11:51:32", "2026-11-21T11:51:32+00:00", "2026-13-21T11:51:32Z",
            "2026-11-21T24:00:00Z",
            "2026-11-21t11:51:32z", "2026-11-21T11:51:32.5Z", "20x6-11-21T11:51:32Z", "2026-02-31T00:00:00Z",
            "2026-11-21T11:51:60Z",
        ])
    func rejects(_ text: String) {
        #expect(Date(rfc3339: text) == nil)
    }
}
