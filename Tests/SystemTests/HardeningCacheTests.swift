import Foundation
import GRDB
import Messaging
import NIOCore
import RnmAPI
import ServiceRuntime
import TestSupport
import Testing

extension FaultSuite.Hardening {
    @Test(
        """
        two 100 KB names, and two names at the length limit: clear errors within 5 s, health answered within 3 s \
        beside them (bounded work, not minutes)
        """
    )
    func hugeUniversityNames() async throws {
        try await RnmSystem.with { system in
            let client = try await system.connect()
            _ = try await client.call(RPCMethods.universitiesList, .init(country: "United States"))
            let started = ContinuousClock.now
            let names = [
                String(repeating: "x", count: 100_000), String(repeating: "y", count: 100_000),
                String(repeating: "u", count: Defaults.maxParamBytes),
                String(repeating: "v", count: Defaults.maxParamBytes),
            ]
            let attempts = names.map { name in
                Task {
                    await rpcError {
                        try await client.call(RPCMethods.universitiesGet, .init(name: name, country: "United States"))
                    }
                }
            }
            let healthStarted = ContinuousClock.now
            _ = try await client.call(RPCMethods.universitiesHealth, NoParams(), timeout: .seconds(3))
            let health = ContinuousClock.now - healthStarted
            var codes: [Int] = []
            for attempt in attempts { codes.append(await attempt.value?.code.rawValue ?? 0) }
            let answered = ContinuousClock.now - started
            #expect(
                codes == [-32602, -32602, -32001, -32001],
                "too long: invalid params; at the limit: not found with suggestions")
            // Bounded work, not a denial of service: unbounded suggestions for a 100 KB name over
            // 10,000 universities take minutes. Wide bounds, as the name says: the whole suite
            // shares two cores (2.1 s once in CI's run); the figures are in the report.
            #expect(answered < .seconds(5))
            #expect(health < .seconds(3))
            FaultReport.record(
                "9. huge names",
                """
                100 KB names: -32602; \(Defaults.maxParamBytes)-byte names: -32001 with suggestions; all answered in \
                \(ms(answered)); health in \(ms(health))
                """
            )
            await client.close()
        }
    }

    @Test(
        """
        filters cannot collide in the cache: name \"rick&status=dead\" is not name rick with status dead, online or \
        offline
        """
    )
    func collidingFilters() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let client = try await system.connect()
            let expected = RickAndMortyFixtures.records("character").filter {
                ($0["name"] as? String ?? "").lowercased().contains("rick") && ($0["status"] as? String) == "Dead"
            }.count
            let tricky = try await client.call(RPCMethods.charactersList, .init(name: "rick&status=dead"))
            let real = try await client.call(RPCMethods.charactersList, .init(name: "rick", status: "dead"))
            #expect(tricky.count == 0)
            #expect(real.count == expected && expected > 0)
            system.characterUpstream.fault = .down
            let refreshed = try await client.call(RPCMethods.charactersRefresh, .init(name: "rick", status: "dead"))
            #expect(refreshed.count == expected && refreshed.freshness.stale)
            FaultReport.record(
                "9. colliding filters",
                """
                \"rick&status=dead\": \(tricky.count); rick + dead: \(real.count) (fixtures: \(expected)), also offline
                """
            )
            await client.close()
        }
    }

    @Test(
        """
        the upstream stays the upstream: a redirect to another host is not followed (0 requests reach it, nothing \
        cached); a body over the limit is abandoned
        """
    )
    func redirectToAnotherHost() async throws {
        let trap = try await TestUpstream.start(host: "127.0.0.2") { _ in .json(#"{"id":1,"name":"Evil Rick"}"#) }
        try await RnmSystem.with(settings: ["RNM_UPSTREAM_MAX_BYTES": "65536"]) { system in
            let trapURL = trap.baseURL
            system.characterFixtures.override = { request in
                request.path.hasPrefix("/api/character/1") ? .redirect(to: trapURL + "/api/character/1") : nil
            }
            let client = try await system.connect()
            let error = await rpcError { try await client.call(RPCMethods.charactersGet, IDParams(id: 1)) }
            #expect(error?.code == .upstreamUnavailable)
            #expect(error?.message.contains("redirected") == true, "\(String(describing: error))")
            #expect(trap.requestCount == 0)
            // A redirect within the same host is still followed.
            let sameHost = system.characterUpstream.baseURL
            system.characterFixtures.override = { request in
                request.path == "/api/character/avatar/1.jpeg"
                    ? .redirect(to: sameHost + "/api/character/avatar/2.jpeg") : nil
            }
            let followed = try await client.call(RPCMethods.charactersImage, IDParams(id: 1))
            #expect(Data(base64Encoded: followed.bytes) == RickAndMortyFixtures.avatar(2))
            // A body over RNM_UPSTREAM_MAX_BYTES.
            let big = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 1, count: 100_000)
            system.characterFixtures.override = { request in
                request.path.hasSuffix("/avatar/8.jpeg")
                    ? UpstreamResponse(status: 200, contentType: "image/png", body: big) : nil
            }
            let tooBig = await rpcError { try await client.call(RPCMethods.charactersImage, IDParams(id: 8)) }
            #expect(
                tooBig?.code == .upstreamUnavailable && tooBig?.message.contains("larger than 65536") == true,
                "\(String(describing: tooBig))")
            await client.close()
            let rows = try await DatabaseQueue(path: system.database(.characters)).read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM character WHERE id = 1") ?? 0
            }
            #expect(rows == 0, "nothing cached from the redirect")
            FaultReport.record(
                "9. redirect",
                """
                to 127.0.0.2: \(error?.message ?? ""); \(trap.requestCount) requests reached it; same-host redirect \
                followed
                """
            )
        }
        await trap.stop()
    }

    @Test(
        "300 distinct 30 KB names do not grow the cache; filtered pages are evicted least recently used past the bound")
    func boundedCache() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_LIST_PAGES": "50"]) { system in
            let client = try await system.connect()
            _ = try await client.call(RPCMethods.charactersList, .init())
            let path = system.database(.characters)
            let sizeBefore = Self.size(path) + Self.size(path + "-wal")
            var refused = 0
            for index in 0..<300 {
                let name = String(index) + String(repeating: "n", count: 30_000)
                let error = await rpcError { try await client.call(RPCMethods.charactersList, .init(name: name)) }
                refused += error?.code == .invalidParams ? 1 : 0
            }
            let grown = Self.size(path) + Self.size(path + "-wal") - sizeBefore
            #expect(refused == 300)
            #expect(grown <= 2 << 20, "database + WAL grew \(grown) bytes")
            for index in 0..<120 { _ = try await client.call(RPCMethods.charactersList, .init(name: "zz\(index)")) }
            let (filtered, unfiltered) = try await DatabaseQueue(path: path).read { db in
                (
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM listPage WHERE filterKey != ''") ?? 0,
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM listPage WHERE filterKey = ''") ?? 0
                )
            }
            #expect(filtered <= 50)
            #expect(unfiltered == 1, "the unfiltered page (the mirror) is never evicted")
            FaultReport.record(
                "9. bounded cache",
                """
                300 × 30 KB names refused; database + WAL grew \(grown) bytes; 120 filters stored → \(filtered) \
                filtered pages kept (bound 50)
                """
            )
            await client.close()
        }
    }

    @Test("a page past the end carries the list's true totals every time: fresh, cached and offline")
    func pastTheEndTotals() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let client = try await system.connect()
            let unseen = try await client.call(RPCMethods.charactersList, .init(page: 50, name: "rick"))
            let first = try await client.call(RPCMethods.charactersList, .init(name: "rick"))
            #expect(unseen.items.isEmpty && unseen.count == first.count && unseen.pages == first.pages)
            let past = first.pages + 3
            let online = try await client.call(RPCMethods.charactersList, .init(page: past, name: "rick"))
            let again = try await client.call(RPCMethods.charactersList, .init(page: past, name: "rick"))
            system.characterUpstream.fault = .down
            let offline = try await client.call(RPCMethods.charactersRefresh, .init(page: past, name: "rick"))
            for answer in [online, again, offline] {
                #expect(
                    answer.items.isEmpty && answer.count == first.count && answer.pages == first.pages,
                    "\(answer.count)/\(answer.pages)")
            }
            #expect(offline.freshness.stale)
            FaultReport.record(
                "9. past-the-end totals",
                "page \(past) of \"rick\": \(first.count) items in \(first.pages) pages, fresh, cached and offline")
            await client.close()
        }
    }

    @Test("getMany with the upstream down tells ids it could not check from ids that do not exist")
    func getManyOffline() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "0"]) { system in
            let client = try await system.connect()
            let online = try await client.call(RPCMethods.charactersGetMany, IDsParams(ids: [1, 2, 9999]))
            #expect(online.missingIds == [9999] && online.uncheckedIds.isEmpty)
            system.characterUpstream.fault = .down
            let offline = try await client.call(RPCMethods.charactersGetMany, IDsParams(ids: [1, 2, 450]))
            #expect(offline.items.map(\.id) == [1, 2])
            #expect(offline.missingIds.isEmpty)
            #expect(offline.uncheckedIds == [450])
            #expect(offline.freshness.stale)
            FaultReport.record(
                "9. getMany offline",
                "[1,2,450] with the upstream down: items [1,2], missingIds [], uncheckedIds [450], stale")
            await client.close()
        }
    }

    @Test("escaped \"jsonrpc\" is accepted; a fractional or out-of-range page or id is -32602 naming the field")
    func paramEdges() async throws {
        try await RnmSystem.with { system in
            let connection = try await RawConnection(socketPath: system.gatewaySocket)
            let cases: [(String, Int?, String?)] = [
                (#"{"jsonrpc":"\u0032.0","id":1,"method":"gateway.health"}"#, nil, nil),
                (#"{"jsonrpc":"2.0","id":2,"method":"characters.list","params":{"page":1.5}}"#, -32602, "\"page\""),
                (
                    #"{"jsonrpc":"2.0","id":3,"method":"characters.list","params":{"page":100000000000}}"#, -32602,
                    "\"page\""
                ),
                (#"{"jsonrpc":"2.0","id":4,"method":"characters.get","params":{"id":1e30}}"#, -32602, "\"id\""),
                (#"{"jsonrpc":"2.0","id":5,"method":"characters.get","params":{"id":99999999999}}"#, -32602, "\"id\""),
                (#"{"jsonrpc":"2.0","id":6,"method":"characters.getMany","params":{"ids":[1,2.5]}}"#, -32602, "\"ids"),
            ]
            for (request, code, field) in cases {
                try await connection.send(request)
                let reply = try await connection.next(seconds: 10)
                if let code {
                    #expect(reply?.errorCode?.rawValue == code, "\(request): \(String(describing: reply?.rpcError))")
                    #expect(
                        reply?.rpcError?.message.contains(field ?? "") == true,
                        "\(request): \(reply?.rpcError?.message ?? "")")
                } else {
                    #expect(reply?.result != nil, "\(request): \(String(describing: reply?.rpcError))")
                }
            }
            FaultReport.record(
                "9. param edges",
                "escaped jsonrpc accepted; fractional and out-of-range page/id: -32602 naming the field")
            connection.close()
        }
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }
}
