import Foundation
import ServiceRuntime
import Testing

/// The settings table (`Setting.spec`) is the one place a setting's default, range and help are
/// written: every setting resolves it; the containers' settings file names every one.
@Suite("Settings table")
struct SettingsTableTests {
    static func document(_ path: String) throws -> [Substring] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8).split(separator: "\n")
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

    /// The settings file of the containers: compose's env_file, Kubernetes' ConfigMap.
    static let settingsFile = "deploy/kubernetes/base/settings.env"

    @Test(
        """
        docker-compose.yml gives every container settings.env and names only what compose changes: the HTTP address, \
        and the favorites' secret URL
        """
    )
    func compose() throws {
        let lines = try Self.document("docker-compose.yml")
        // Every rnm service merges x-service, which reads the file; rnmctl reads it itself.
        let envFiles = lines.filter { $0.trimmingCharacters(in: .whitespaces) == "env_file: \(Self.settingsFile)" }
        #expect(envFiles.count == 2, "x-service and rnmctl should read \(Self.settingsFile)")
        for service in ["characters", "universities", "gateway", "http"] {
            let header = try #require(lines.firstIndex { $0 == "  \(service):" }, "no service \(service)")
            #expect(lines[header + 1] == "    <<: *service", "\(service) does not merge x-service")
        }
        // A new setting needs nothing here: the file names it.
        let named = Set(
            lines.compactMap { line -> String? in
                let text = line.trimmingCharacters(in: .whitespaces)
                guard text.hasPrefix("RNM_"), let colon = text.firstIndex(of: ":") else { return nil }
                return String(text[..<colon])
            })
        #expect(
            named == [Setting.httpAddress.rawValue, Setting.favoritesURL.rawValue], "compose names \(named.sorted())")
    }

    @Test(
        """
        docker-compose.yml's health checks give rnmctl time to answer, and the Gateway's more than \
        RNM_HEALTH_TIMEOUT_MS: a service that hangs is reported down, not the Gateway unhealthy
        """
    )
    func composeHealthDeadlines() throws {
        let lines = try Self.document("docker-compose.yml").map { $0.trimmingCharacters(in: .whitespaces) }
        // As the containers get it: settings.env's value if it sets one, else the default.
        let set = try Self.settingLines(Self.settingsFile).first {
            $0.name == Setting.healthTimeoutMilliseconds.rawValue && !$0.commented
        }
        let health = set.flatMap { Int($0.value) } ?? Defaults.healthTimeoutMilliseconds
        var checked = 0
        for (index, line) in lines.enumerated() where line.hasPrefix("test: [\"CMD\", \"rnmctl\"") {
            let words = line.split(separator: "\"").map(String.init)
            let given = try #require(words.firstIndex(of: "--timeout").flatMap { Double(words[$0 + 2]) }, "\(line)")
            // Its own healthcheck's: before the next one's test line.
            let own = lines[(index + 1)...].prefix { !$0.hasPrefix("test: ") }
            let limit = try #require(own.first { $0.hasPrefix("timeout: ") }, "\(line)")
            let seconds = try #require(Double(limit.dropFirst("timeout: ".count).dropLast()), "\(limit)")
            #expect(seconds > given, "compose stops \(line) before rnmctl can say why")
            if line.contains("gateway.health") {
                #expect(given * 1000 >= Double(health + 500), "\(line) under RNM_HEALTH_TIMEOUT_MS \(health) + 0.5 s")
            }
            checked += 1
        }
        #expect(checked == 3, "the three rnmctl health checks")
    }

    /// `RNM_X=value` or `# RNM_X=value` lines of a settings file: a name a person can find (and
    /// uncomment), with its value.
    static func settingLines(_ path: String) throws -> [(name: String, value: String, commented: Bool)] {
        try document(path).compactMap { line in
            let commented = line.hasPrefix("# ")
            let text = commented ? line.dropFirst(2) : line[...]
            guard text.hasPrefix("RNM_"), let equals = text.firstIndex(of: "=") else { return nil }
            return (String(text[..<equals]), String(text[text.index(after: equals)...]), commented)
        }
    }

    @Test(
        "Kubernetes' settings files name every setting once: set, or at its default (the table's) in a comment"
    )
    func kubernetes() throws {
        let shared = try Self.settingLines(Self.settingsFile)
        let cluster = try Self.settingLines("deploy/kubernetes/base/cluster.env")
        let named = Set(shared.map(\.name))
        for setting in Setting.allCases {
            #expect(named.contains(setting.rawValue), "settings.env does not name \(setting.rawValue)")
        }
        #expect(named.subtracting(Setting.allCases.map(\.rawValue)).isEmpty, "settings.env names no setting rnm has")
        // kustomize refuses a key set in both files: cluster.env's are only commented in settings.env.
        for line in cluster {
            #expect(shared.contains { $0.name == line.name && $0.commented }, "\(line.name) is set in both files")
        }
        // A commented default says the table's, so that uncommenting it changes nothing.
        for line in shared where line.commented {
            guard let setting = Setting(rawValue: line.name), !line.value.isEmpty else { continue }
            switch setting.spec.defaultValue {
            case .integer(let value): #expect(line.value == String(value), "\(line.name)'s default is \(value)")
            case .text(let text): #expect(line.value == text, "\(line.name)'s default is \(text)")
            case .perProcess(let gateway, let service):
                #expect(line.value.contains("\(gateway) in the Gateway, \(service) in a service"), "\(line.name)")
            case .described: continue
            }
        }
    }
}
