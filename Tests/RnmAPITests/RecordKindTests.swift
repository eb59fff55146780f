import Foundation
import RnmAPI
import Testing

/// Each record kind's filters are written once (its list params' `filterFields`); what reads
/// them (validation, the offline mirror, the HTTP front, rnmctl's hints) must see the wire's keys.
@Suite("Record kinds")
struct RecordKindTests {
    @Test("each kind's filters are its list params' wire keys, in the API's order", arguments: RecordKind.allCases)
    func filtersAreWireKeys(kind: RecordKind) throws {
        let expected: [RecordKind: [String]] = [
            .character: ["name", "status", "species", "type", "gender"],
            .location: ["name", "type", "dimension"],
            .episode: ["name", "episode"],
        ]
        #expect(kind.filters == expected[kind])
        // Params made from the filter names carry each value under its own key on the wire.
        let params = kind.listParams.init(page: 2) { "value of \($0)" }
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(params)) as? [String: Any]
        #expect(json?["page"] as? Int == 2)
        for name in kind.filters { #expect(json?[name] as? String == "value of \(name)") }
        #expect(Set(json?.keys.map { $0 } ?? []) == Set(kind.filters + ["page"]))
        #expect(params.filterValues.map(\.name) == kind.filters)
    }

    @Test("status and gender are the only filters with fixed values")
    func fixedValues() {
        #expect(RecordKind.character.fixedValues["status"] == ["alive", "dead", "unknown"])
        #expect(RecordKind.character.fixedValues["gender"] == ["female", "male", "genderless", "unknown"])
        #expect(RecordKind.location.fixedValues.isEmpty && RecordKind.episode.fixedValues.isEmpty)
        #expect(RecordKind.allFilters == ["name", "status", "species", "type", "gender", "dimension", "episode"])
    }

    @Test("a list's pages as the API counts them: 20 to a page, the last one partly, none when empty")
    func pagesHolding() {
        #expect([0, 1, 20, 21, 493].map(RecordKind.pages(holding:)) == [0, 1, 1, 2, 25])
    }
}
