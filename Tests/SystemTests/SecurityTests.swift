import Foundation
import Messaging
import NIOCore
import RnmAPI
import TestSupport
import Testing

extension FaultSuite {
    /// Scenario 8: who may connect, who may start, where requests may go, how SQL is built.
    @Suite("8. security")
    struct Security {
        @Test("socket files are 0660; a second instance on a live socket refuses to start and the first keeps serving")
        func socketsAndSecondInstance() async throws {
            let system = try await RnmSystem.start()
            var refusals: [String] = []
            for role in RnmSystem.Role.allCases {
                let path = system.socket(role)
                let attributes = try FileManager.default.attributesOfItem(atPath: path)
                #expect((attributes[.posixPermissions] as? Int) == 0o660, "\(role) socket mode")
                let inode = attributes[.systemFileNumber] as? Int

                let second = try await ChildProcess.run(
                    role.executable, [], environment: system.environment, seconds: 15)
                #expect(second.status != 0, "\(role): a second instance must not start")
                #expect(
                    second.stderr.contains(path), "\(role): says which socket is taken: \(second.stderr.suffix(300))")
                #expect(
                    (try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int) == inode,
                    "\(role): the live socket file is left alone")
                let client = try await system.connect(role)
                #expect(
                    try await client.call(method: role.healthMethod, params: nil, timeout: .seconds(5)).result != nil)
                await client.close()
                refusals.append("\(role) exit \(second.status)")
            }
            FaultReport.record(
                "8. sockets",
                """
                all three 0660; second instance refused: \(refusals.joined(separator: ", ")); first instances kept \
                serving
                """
            )
            try await system.stop()
        }

        @Test(
            """
            no request ever leaves for a host other than the configured upstream, whatever the payloads and params \
            contain
            """
        )
        func upstreamOnly() async throws {
            // Anything sent anywhere but 127.0.0.1 goes through this "proxy" and is recorded.
            let trap = try await TestUpstream.start { _ in .json("{}") }
            let proxy = trap.baseURL
            let system = try await RnmSystem.start(settings: [
                "http_proxy": proxy, "https_proxy": proxy, "HTTP_PROXY": proxy, "HTTPS_PROXY": proxy,
                "ALL_PROXY": proxy,
                "no_proxy": "127.0.0.1", "NO_PROXY": "127.0.0.1",
            ])
            // Every link in every upstream payload now names another host.
            system.characterFixtures.linkBase = "https://evil.example/api"
            let client = try await system.connect()
            let hostile = [
                ("characters.get", #"{"id":1}"#), ("locations.get", #"{"id":1}"#), ("episodes.get", #"{"id":1}"#),
                ("characters.image", #"{"id":1}"#), ("characters.getMany", #"{"ids":[1,2,3]}"#),
                ("characters.list", #"{"name":"http://evil.example/x?a=1#","page":1}"#),
                ("characters.list", #"{"name":"../../../etc/passwd"}"#),
                ("characters.get", #"{"id":"https://evil.example/api/character/1"}"#),
                ("locations.list", #"{"name":"@evil.example:80/"}"#),
                ("universities.list", #"{"country":"http://evil.example/"}"#),
                ("universities.list", #"{"country":"../../search?country=x"}"#),
                ("universities.get", #"{"name":"x@evil.example"}"#),
                ("characters.sync", "{}"),
            ]
            var answered = 0
            for (method, params) in hostile {
                let reply = try await client.call(
                    method: method, params: ByteBuffer(string: params), timeout: .seconds(60))
                answered += reply.result != nil ? 1 : 0
            }
            #expect(trap.requestCount == 0, "requests left for other hosts: \(trap.requests.prefix(3).map(\.target))")
            let characterHost = system.characterUpstream.baseURL.replacingOccurrences(of: "http://", with: "")
            let universityHost = system.universityUpstream.baseURL.replacingOccurrences(of: "http://", with: "")
            let strayCharacters = system.characterUpstream.requests.filter {
                $0.host != characterHost || !$0.path.hasPrefix("/api/")
            }
            let strayUniversities = system.universityUpstream.requests.filter {
                $0.host != universityHost || $0.path != "/search"
            }
            #expect(strayCharacters.count == 0, "\(strayCharacters.prefix(3).map(\.target))")
            #expect(strayUniversities.count == 0, "\(strayUniversities.prefix(3).map(\.target))")
            let upstreamRequests = system.characterUpstream.requestCount + system.universityUpstream.requestCount
            FaultReport.record(
                "8. upstream only",
                """
                \(hostile.count) hostile requests (\(answered) answered, the rest clear errors), payload links \
                pointing at evil.example; \(upstreamRequests) upstream requests, all to the configured hosts and \
                paths; 0 reached the trap proxy
                """
            )
            await client.close()
            try await system.stop()
            await trap.stop()
        }

        @Test(
            """
            SQL is built only with bound parameters: injection attempts change nothing, and no SQL literal anywhere \
            in the sources interpolates a value (only table names, `?` lists and constants)
            """
        )
        func boundParametersOnly() async throws {
            let system = try await RnmSystem.start(settings: ["RNM_CHARACTERS_MAX_AGE": "600"])
            try await system.warm()
            let client = try await system.connect()
            _ = try await client.call(RPCMethods.favoritesAdd, IDParams(id: 1))
            let databases = [system.database(.characters), system.database(.universities)]
            let before = try databases.map { try DatabaseSnapshot.read($0, ignoring: ["fetchedAt", "usedAt"]) }
            let injections = [
                ("universities.get", #"{"name":"x' OR '1'='1"}"#),
                ("universities.get", #"{"name":"x\"; DROP TABLE university; --"}"#),
                ("universities.list", #"{"name":"%' OR 1=1 --"}"#),
                ("universities.list", #"{"country":"United Arab Emirates'; DELETE FROM country; --"}"#),
                ("characters.list", #"{"name":"'; DROP TABLE character; --"}"#),
                ("locations.list", #"{"name":"x') OR ('a'='a"}"#),
            ]
            for (method, params) in injections {
                let reply = try await client.call(
                    method: method, params: ByteBuffer(string: params), timeout: .seconds(30))
                #expect(
                    reply.errorCode != .internalError,
                    "\(method) \(params): \(String(describing: reply.rpcError))")
            }
            let matches = try await client.call(RPCMethods.universitiesList, .init(name: "%' OR 1=1 --"))
            #expect(matches.count == 0, "an injected LIKE pattern matches nothing")
            let after = try databases.map { try DatabaseSnapshot.read($0, ignoring: ["fetchedAt", "usedAt"]) }
            let lost = zip(before, after).flatMap { $0.rowsMissing(from: $1) }
            #expect(lost.count == 0, "nothing deleted or changed: \(lost.prefix(3))")
            #expect(try await client.call(RPCMethods.favoritesList, NoParams()).items.map(\.id) == [1])

            // Every SQL text in the sources is constant: each string literal that holds SQL,
            // wherever it is (handed to `sql:`, built up in a variable, concatenated from parts),
            // interpolates only names chosen in code and lists of `?` placeholders.
            let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
                .appendingPathComponent("Sources")
            var statements = 0
            var interpolated: [String] = []
            for file in FileManager.default.enumerator(atPath: sources.path)!.compactMap({ $0 as? String })
            where file.hasSuffix(".swift") {
                let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
                let scan = SQLScan(source: text)
                statements += scan.statements
                interpolated += scan.values.map { "\(file): \($0)" }
            }
            #expect(statements > 40, "SQL literals found: \(statements)")
            #expect(interpolated.count == 0, "SQL with interpolated values: \(interpolated)")
            // The scan itself sees a value interpolated away from `sql:`, in any form of literal.
            let hostile = ##"""
                let query = "SELECT id FROM character WHERE name = '\(name)'"
                try db.execute(sql: query)
                let text = """
                    DELETE FROM favorite
                    WHERE id = \(id)
                    """
                let raw = #"UPDATE listPage SET ids = \#(ids) WHERE page = ?"#
                let safe = "SELECT COUNT(*) FROM " + table + " WHERE id IN (\(placeholders))"
                """##
            #expect(SQLScan(source: hostile).values == ["name", "id", "ids"])
            FaultReport.record(
                "8. SQL",
                """
                \(injections.count) injection attempts: no internal error, no row lost; \(statements) SQL literals in \
                the sources, \(interpolated.count) interpolate a value
                """
            )
            await client.close()
            try await system.stop()
        }
    }
}

/// The SQL text in Swift source: every string literal (`"…"`, `"""…"""`, `#"…"#`; comments
/// skipped) that holds SQL (a keyword in capitals, a `?` placeholder, or a quoted interpolation
/// compared or listed), and what those interpolate beyond names chosen in code.
struct SQLScan {
    /// Interpolations allowed in SQL: table names from ``RecordKind``, `?` lists, the page size
    /// (a constant), and ``CopyOrder``'s SQL condition (with its own parameters: the callers pass
    /// constant SQL text).
    static let allowed: Set<String> = [
        "resource.table", "table", "placeholders", "databaseQuestionMarks(count: ids.count)", "RecordKind.pageSize",
        "incoming", "now",
    ]
    static let sqlPattern =
        #"\b(SELECT|INSERT|UPDATE|DELETE|PRAGMA|CREATE|DROP|ALTER|FROM|WHERE|VALUES|LIMIT|OFFSET|ORDER BY|GROUP BY|"#
        + #"AND|OR|IN|LIKE|SET|CASE|WHEN|THEN|ELSE|END|JOIN)\b|[=(,] ?'\x00|[=(,] ?\?"#
    static let tripleQuote = String(repeating: "\"", count: 3)
    static let copyOrderPattern = (#"^CopyOrder\.replaces\("[^"\\]*", storedIn: "[^"\\]*"\)$"#)

    /// SQL literals found.
    var statements = 0
    /// The interpolated expressions not allowed, in the order found.
    var values: [String] = []

    init(source: String) {
        let sql = try! Regex(Self.sqlPattern)
        let copyOrder = try! Regex(Self.copyOrderPattern)
        for (text, expressions) in Self.literals(source) where text.contains(sql) {
            statements += 1
            values += expressions.filter { !Self.allowed.contains($0) && $0.wholeMatch(of: copyOrder) == nil }
        }
    }

    /// Each string literal: its text (an interpolation written as U+0000) and its interpolations.
    static func literals(_ source: String) -> [(text: String, expressions: [String])] {
        let scalars = Array(source.unicodeScalars)
        func starts(_ text: String, at index: Int) -> Bool {
            var position = index
            for scalar in text.unicodeScalars {
                guard position < scalars.count, scalars[position] == scalar else { return false }
                position += 1
            }
            return true
        }
        var found: [(String, [String])] = []
        var index = 0
        while index < scalars.count {
            if starts("//", at: index) {
                while index < scalars.count, scalars[index] != "\n" { index += 1 }
                continue
            }
            if starts("/*", at: index) {
                while index < scalars.count, !starts("*/", at: index) { index += 1 }
                index += 2
                continue
            }
            var hashes = 0
            while index + hashes < scalars.count, scalars[index + hashes] == "#" { hashes += 1 }
            guard index + hashes < scalars.count, scalars[index + hashes] == "\"" else {
                index += max(1, hashes)
                continue
            }
            let pounds = String(repeating: "#", count: hashes)
            let quote = starts(Self.tripleQuote, at: index + hashes) ? Self.tripleQuote : "\""
            index += hashes + quote.unicodeScalars.count
            let close = quote + pounds
            let escape = "\\" + pounds
            var text = String.UnicodeScalarView()
            var expressions: [String] = []
            while index < scalars.count, !starts(close, at: index) {
                if starts(escape + "(", at: index) {
                    index += escape.unicodeScalars.count + 1
                    var depth = 1
                    var expression = String.UnicodeScalarView()
                    while index < scalars.count {
                        let scalar = scalars[index]
                        if scalar == "(" { depth += 1 }
                        if scalar == ")" {
                            depth -= 1
                            if depth == 0 { break }
                        }
                        if scalar == "\"" {
                            // A literal inside the interpolation, copied as it is.
                            expression.append(scalar)
                            index += 1
                            while index < scalars.count, scalars[index] != "\"" {
                                if scalars[index] == "\\" {
                                    expression.append(scalars[index])
                                    index += 1
                                }
                                if index < scalars.count { expression.append(scalars[index]) }
                                index += 1
                            }
                        }
                        if index < scalars.count { expression.append(scalars[index]) }
                        index += 1
                    }
                    index += 1
                    expressions.append(String(expression))
                    text.append("\u{0}")
                } else if starts(escape, at: index) {
                    for _ in 0...escape.unicodeScalars.count where index < scalars.count {
                        text.append(scalars[index])
                        index += 1
                    }
                } else {
                    text.append(scalars[index])
                    index += 1
                }
            }
            index += close.unicodeScalars.count
            found.append((String(text), expressions))
        }
        return found
    }
}
