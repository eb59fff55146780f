import RnmAPI
import TestSupport
import Testing

/// rnmctl declares its list filters as options (ArgumentParser needs them declared); RnmAPI's
/// `RecordKind` is where a kind's filters are written. This keeps the two the same: a filter
/// added to a kind and not to its command is a failure here, not a flag users miss.
@Suite("rnmctl follows RecordKind", .cleansUp)
struct RnmctlKindTests {
    @Test(
        "each kind's list command takes every filter of the kind, fixed values in its help",
        arguments: RecordKind.allCases)
    func listFilters(kind: RecordKind) async throws {
        let help = try await ChildProcess.run("rnmctl", [kind.plural, "list", "--help"])
        #expect(help.status == 0, "\(help.stderr)")
        let options = Set(help.stdout.matches(of: /--([a-z][a-z-]*)/).map { String($0.1) })
        for filter in kind.filters {
            #expect(options.contains(filter), "rnmctl \(kind.plural) list has no --\(filter):\n\(help.stdout)")
            for value in kind.fixedValues[filter] ?? [] {
                // A whole word: "male" is in "female".
                let word = try Regex("\\b\(value)\\b")
                #expect(help.stdout.contains(word), "--\(filter)'s help does not name \(value)")
            }
        }
    }
}
