import Foundation
import ServiceRuntime
import Testing

/// The settings table (`Setting.spec`) is the one place a setting's default, range and help are
/// written; docs/SETTINGS.md.md and docs/PROTOCOL.md must list every setting with that default.
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
        "docs/SETTINGS.md and PROTOCOL §7 list every setting with its default",
        arguments: ["docs/SETTINGS.md", "docs/PROTOCOL.md"])
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

    /// The services of docker-compose.yml that run an rnm process.
    static let composeServices = ["characters", "universities", "gateway", "http"]

    @Test(
        "docker-compose.yml passes every setting to every process: x-settings holds the table, each service merges it")
    func compose() throws {
        let lines = try Self.document("docker-compose.yml")
        // The x-settings block: its indented lines.
        let start = try #require(lines.firstIndex { $0.hasPrefix("x-settings: &settings") })
        let block = lines[(start + 1)...].prefix { $0.hasPrefix("  ") }
        let passed = block.compactMap { $0.split(separator: ":").first?.trimmingCharacters(in: .whitespaces) }
        // Each service's own environment: what it merges and the few that compose fixes for it.
        var fixed: Set<String> = []
        for service in Self.composeServices {
            let header = try #require(lines.firstIndex { $0 == "  \(service):" }, "no service \(service)")
            let body = lines[(header + 1)...].prefix { $0.hasPrefix("    ") || $0.isEmpty }
            let environment = body.drop { $0 != "    environment:" }.dropFirst().prefix { $0.hasPrefix("      ") }
            #expect(environment.first == "      <<: *settings", "\(service) does not merge x-settings")
            fixed.formUnion(
                environment.dropFirst().compactMap {
                    $0.split(separator: ":").first.map {
                        $0.trimmingCharacters(in: .whitespaces)
                    }
                })
        }
        // Every setting but those compose fixes, each from the shell or .env, empty for its default.
        let expected = Setting.allCases.map(\.rawValue).filter { !fixed.contains($0) }
        let text = expected.map { "  \($0): ${\($0):-}" }.joined(separator: "\n")
        #expect(
            block.map(String.init) == text.split(separator: "\n").map(String.init), "x-settings should be:\n\(text)")
        #expect(Set(passed).union(fixed) == Set(Setting.allCases.map(\.rawValue)))
    }

    @Test(
        "Kubernetes' settings file names every setting: set for a cluster, or at its default in a comment to uncomment"
    )
    func kubernetes() throws {
        let lines = try Self.document("deploy/kubernetes/base/settings.env")
        // `RNM_X=value` or `# RNM_X=…`: a name a person can find and uncomment.
        let named = Set(
            lines.compactMap { line -> String? in
                let text = line.hasPrefix("# ") ? line.dropFirst(2) : line[...]
                guard text.hasPrefix("RNM_"), let equals = text.firstIndex(of: "=") else { return nil }
                return String(text[..<equals])
            })
        for setting in Setting.allCases {
            #expect(named.contains(setting.rawValue), "settings.env does not name \(setting.rawValue)")
        }
        #expect(named.subtracting(Setting.allCases.map(\.rawValue)).isEmpty, "settings.env names no setting rnm has")
    }
}
