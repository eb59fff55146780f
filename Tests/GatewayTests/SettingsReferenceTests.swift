import Foundation
import ServiceRuntime
import Testing

/// docs/SETTINGS.md's table is generated from the settings table (`Setting.reference`), as
/// `scripts/man` generates the man page; `scripts/settings-doc` rewrites it, by running this
/// suite with `RNM_WRITE_SETTINGS_DOC=1`.
@Suite("Settings reference")
struct SettingsReferenceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The document with its generated part replaced by `table`.
    static func document(_ text: String, with table: String) throws -> String {
        let marks = Setting.referenceMarks
        let begin = try #require(text.range(of: marks.begin + "\n"), "no \(marks.begin) line")
        let end = try #require(text.range(of: marks.end, range: begin.upperBound..<text.endIndex), "no end mark")
        return String(text[..<begin.upperBound]) + table + "\n" + String(text[end.lowerBound...])
    }

    @Test("docs/SETTINGS.md's table is the settings table's (else run scripts/settings-doc)")
    func generated() throws {
        let file = Self.root.appendingPathComponent("docs/SETTINGS.md")
        let text = try String(contentsOf: file, encoding: .utf8)
        let expected = try Self.document(text, with: Setting.reference)
        if ProcessInfo.processInfo.environment["RNM_WRITE_SETTINGS_DOC"] == "1" {
            try expected.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        guard text != expected else { return }
        // The first line that differs, rather than the whole file twice.
        let said = text.split(separator: "\n").map(String.init) + [""]
        let table = expected.split(separator: "\n").map(String.init) + [""]
        let first = zip(said, table).first { $0.0 != $0.1 } ?? ("", "")
        let message = "docs/SETTINGS.md differs from the settings table: run scripts/settings-doc"
        Issue.record("\(message)\n  file:  \(first.0)\n  table: \(first.1)")
    }

    @Test("PROTOCOL §7 and README link the reference instead of restating it")
    func linked() throws {
        for (path, link) in [("docs/PROTOCOL.md", "(SETTINGS.md)"), ("README.md", "(docs/SETTINGS.md)")] {
            let text = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
            #expect(text.contains(link), "\(path) does not link the settings reference")
            // A setting's row, as the reference writes it, belongs there only.
            for setting in Setting.allCases {
                #expect(!text.contains("| `\(setting.rawValue)` |"), "\(path) restates \(setting.rawValue)'s row")
            }
        }
    }

    @Test("the reference names each setting's readers, and its flag in each")
    func readers() {
        for setting in Setting.allCases {
            #expect(!setting.spec.readers.isEmpty, "\(setting.rawValue) has no reader")
            #expect(
                Set(setting.spec.flags.keys).isSubset(of: setting.spec.readers),
                "\(setting.rawValue) names a flag in a program that does not read it")
        }
        let rows = Setting.reference.split(separator: "\n")
        #expect(
            rows.contains {
                $0.hasPrefix(
                    "| `RNM_GATEWAY_SOCKET` | Gateway `--socket`; HTTPGateway `--gateway-socket`; rnmctl `--socket` |")
            })
        #expect(
            rows.contains {
                $0.hasPrefix(
                    "| `RNM_EVENT_LOOPS` | Gateway, CharacterService, UniversityService, HTTPGateway (no flag) |")
            })
    }
}
