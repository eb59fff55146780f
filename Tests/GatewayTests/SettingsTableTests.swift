import Foundation
import ServiceRuntime
import Testing

/// The settings table (`Setting.spec`) is the one place a setting's default, range and help are
/// written; README.md and docs/PROTOCOL.md must list every setting with that default.
@Suite("Settings table")
struct SettingsTableTests {
    static func document(_ path: String) throws -> [Substring] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8).split(separator: "\n")
    }

    /// The numbers or text a row must show for the setting's default.
    static func defaultMarks(_ setting: Setting) -> [String] {
        switch setting.spec.defaultValue {
        case .integer(let value): [String(value)]
        case .text(let text): [text]
        case .perProcess(let gateway, let service): [String(gateway), String(service)]
        case .described: []
        }
    }

    @Test(
        "README's Settings table and PROTOCOL §7 list every setting with its default",
        arguments: ["README.md", "docs/PROTOCOL.md"])
    func documented(path: String) throws {
        let lines = try Self.document(path)
        for setting in Setting.allCases {
            let row = lines.first { $0.hasPrefix("| `\(setting.rawValue)`") }
            #expect(row != nil, "\(path) has no row for \(setting.rawValue)")
            for mark in Self.defaultMarks(setting) {
                #expect(
                    row?.contains(mark) == true, "\(path): \(setting.rawValue)'s row does not say its default \(mark)")
            }
        }
    }

    @Test("every setting resolves its default, checks its range, and says both in --help")
    func resolves() throws {
        for setting in Setting.allCases {
            let help = setting.help.abstract
            #expect(help.contains(setting.rawValue) && help.contains(setting.defaultText), "\(help)")
            guard let range = setting.spec.range else { continue }
            if case .described = setting.spec.defaultValue { continue }
            #expect(try setting.resolveInteger(nil, environment: [:]) == setting.integerDefault())
            #expect(throws: SettingError.self) {
                try setting.resolveInteger(nil, environment: [setting.rawValue: String(range.upperBound &+ 1)])
            }
        }
        #expect(try Setting.connectionBufferBytes.resolveInteger(nil, in: .gateway, environment: [:]) == 4_194_304)
        #expect(try Setting.connectionBufferBytes.resolveInteger(nil, in: .service, environment: [:]) == 67_108_864)
    }
}
