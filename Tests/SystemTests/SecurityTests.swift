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
                "all three 0660; second instance refused: \(refusals.joined(separator: ", ")); first instances kept serving"
            )
            try await system.stop()
        }

        @Test(
            "no request ever leaves for a host other than the configured upstream, whatever the payloads and params contain"
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
                "\(hostile.count) hostile requests (\(answered) answered, the rest clear errors), payload links pointing at evil.example; \(upstreamRequests) upstream requests, all to the configured hosts and paths; 0 reached the trap proxy"
            )
            await client.close()
            try await system.stop()
            await trap.stop()
        }

        @Test(
            "SQL is built only with bound parameters: injection attempts change nothing, and no SQL text in the sources interpolates a value"
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

            // Every SQL string literal in the services' sources is constant text: the only
            // interpolations allowed are table names chosen in code and lists of `?` placeholders.
            let allowed: Set<String> = [
                "resource.table", "table", "placeholders", "databaseQuestionMarks(count: ids.count)",
            ]
            let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
                .appendingPathComponent("Sources")
            var statements = 0
            var interpolated: [String] = []
            for file in FileManager.default.enumerator(atPath: sources.path)!.compactMap({ $0 as? String })
            where file.hasSuffix(".swift") {
                let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") where line.contains("sql:") {
                    statements += 1
                    for part in line.components(separatedBy: "\\(").dropFirst() {
                        let expression = String(part.prefix { $0 != ")" }) + (part.contains("(count:") ? ")" : "")
                        if !allowed.contains(expression) { interpolated.append("\(file): \(expression)") }
                    }
                }
            }
            #expect(statements > 10)
            #expect(interpolated.count == 0, "SQL with interpolated values: \(interpolated)")
            FaultReport.record(
                "8. SQL",
                "\(injections.count) injection attempts: no internal error, no row lost; \(statements) SQL statements in the sources, \(interpolated.count) interpolate a value"
            )
            await client.close()
            try await system.stop()
        }
    }
}
