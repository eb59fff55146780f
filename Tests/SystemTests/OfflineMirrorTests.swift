import Foundation
import GRDB
import Messaging
import NIOCore
import RnmAPI
import TestSupport
import Testing

extension FaultSuite {
    /// Issue 15: after a sync, every read answers with no upstream at all.
    @Suite("10. offline for real")
    struct OfflineMirror {
        /// List queries and what the upstream's own rules give for them (computed from the fixtures).
        static let queries: [(resource: String, params: [String: String])] = {
            var queries: [(String, [String: String])] = []
            for page in 1...3 { queries.append(("character", ["page": "\(page)"])) }
            queries += [
                ("character", ["name": "rick"]), ("character", ["name": "RICK", "page": "2"]),
                ("character", ["name": "Rick", "page": "5"]),
                ("character", ["status": "dead"]), ("character", ["status": "alive", "page": "8"]),
                ("character", ["status": "unknown"]),
                ("character", ["species": "Alien"]), ("character", ["species": "alien", "page": "3"]),
                ("character", ["species": "Mythological"]),
                ("character", ["type": "Parasite"]), ("character", ["type": "(", "page": "1"]),
                ("character", ["gender": "male"]),
                ("character", ["gender": "female"]), ("character", ["gender": "female", "page": "4"]),
                ("character", ["gender": "genderless"]),
                ("character", ["name": "morty", "status": "alive", "gender": "male"]), ("character", ["name": "mr."]),
                ("character", ["name": "-"]), ("character", ["name": "zzz-nothing"]), ("character", ["page": "26"]),
                ("character", ["name": "smith", "page": "9"]),
                ("location", ["page": "2"]), ("location", ["name": "earth"]),
                ("location", ["type": "planet", "page": "2"]),
                ("location", ["dimension": "c-137"]), ("location", ["dimension": "Replacement"]),
                ("location", ["name": "("]),
                ("episode", ["episode": "S03"]), ("episode", ["name": "rick"]), ("episode", ["page": "2"]),
                ("episode", ["episode": "s01e1"]),
                ("episode", ["name": "."]), ("character", ["type": "male"]),
                ("character", ["species": "male", "status": "alive"]),
                // A NUL matches nothing (SQLite would read the value only up to it).
                ("character", ["name": "rick\u{0}zzz"]), ("character", ["species": "\u{0}"]),
                ("location", ["name": "\u{0}"]),
            ]
            return queries
        }()

        /// The upstream's answer (afuh/rick-and-morty-api `models/Character.js`): every filter a
        /// case-insensitive literal substring; for characters, a value beginning with "male" from
        /// the start of the field only; 20 a page, by id.
        static func expected(_ resource: String, _ params: [String: String]) -> (ids: [Int], count: Int, pages: Int) {
            let page = Int(params["page"] ?? "1")!
            let fields = ["episode": "episode"]
            let matching = RickAndMortyFixtures.records(resource).filter { record in
                params.allSatisfy { name, value in
                    guard name != "page" else { return true }
                    let field = (record[fields[name] ?? name] as? String ?? "").lowercased()
                    let wanted = value.lowercased()
                    return resource == "character" && wanted.hasPrefix("male")
                        ? field.hasPrefix(wanted) : field.contains(wanted)
                }
            }
            let ids = matching.compactMap { $0["id"] as? Int }
            let slice = ids.dropFirst((page - 1) * 20).prefix(20)
            return (Array(slice), ids.count, (ids.count + 19) / 20)
        }

        /// 200 of the queries above straight to the CharacterService: the median and p99.
        static func localQueryLatencies(_ system: RnmSystem) async throws -> (median: Duration, p99: Duration) {
            let direct = try await system.connect(.characters)
            var latencies: [Duration] = []
            for index in 0..<200 {
                let (resource, params) = queries[index % queries.count]
                let started = ContinuousClock.now
                _ = try await call(direct, resource, params)
                latencies.append(ContinuousClock.now - started)
            }
            await direct.close()
            latencies.sort()
            return (latencies[100], latencies[198])
        }

        static func call(_ client: RPCClient, _ resource: String, _ params: [String: String]) async throws -> Envelope {
            var json = params.map { key, value in
                key == "page" ? "\"page\":\(value)" : "\"\(key)\":\(JSONText.quoted(value))"
            }
            json.sort()
            return try await client.call(
                method: "\(resource)s.list", params: ByteBuffer(string: "{" + json.joined(separator: ",") + "}"),
                timeout: .seconds(10))
        }

        @Test(
            """
            with the upstream stopped after a sync, 30+ list queries answer exactly as the upstream would, stale with \
            the reason; records, all 493 avatars byte for byte (each its character's own) and universities too
            """
        )
        func answersLikeTheUpstream() async throws {
            try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "0"]) { system in
                let client = try await system.connect()
                _ = try await client.call(RPCMethods.charactersSync, NoParams(), timeout: .seconds(120))
                _ = try await client.call(RPCMethods.universitiesSync, NoParams(), timeout: .seconds(120))
                system.characterUpstream.fault = .down
                system.universityUpstream.fault = .down
                #expect(Self.queries.count >= 30)
                // Every page of a multi-page result, and one past the end.
                let everyPage = (1...9).map { ("character", ["status": "dead", "page": "\($0)"]) }
                for (resource, params) in Self.queries + everyPage {
                    let reply = try await Self.call(client, resource, params)
                    let result = try #require(
                        reply.result, "\(resource) \(params): \(String(describing: reply.rpcError))")
                    let page = try JSONCoding.decode(Fresh<Page<Identified>>.self, from: result)
                    let expected = Self.expected(resource, params)
                    #expect(page.items.map(\.id) == expected.ids, "\(resource) \(params)")
                    #expect(
                        page.count == expected.count && page.pages == expected.pages,
                        "\(resource) \(params): \(page.count)/\(page.pages)")
                    #expect(
                        page.freshness.stale && page.freshness.upstreamError != nil,
                        "\(resource) \(params) says stale, with the reason")
                }
                let rick = try await client.call(RPCMethods.charactersGet, IDParams(id: 1))
                #expect(rick.character.name == "Rick Sanchez" && rick.episodes.count == 31)
                let many = try await client.call(RPCMethods.charactersGetMany, IDsParams(ids: [3, 1, 493]))
                #expect(many.items.map(\.id) == [3, 1, 493] && many.uncheckedIds.isEmpty)
                #expect(try await client.call(RPCMethods.locationsGet, IDParams(id: 3)).residents.count > 0)
                #expect(try await client.call(RPCMethods.episodesGet, IDParams(id: 28)).characters.count > 0)
                // Each character's own avatar (the stand-in serves every character distinct bytes).
                let served = (1...493).map { RickAndMortyFixtures.servedAvatar($0) }
                #expect(Set(served).count == 493, "493 distinct avatars served")
                var avatarsDiffering: [Int] = []
                for id in 1...493 {
                    let image = try await client.call(RPCMethods.charactersImage, IDParams(id: id))
                    if Data(base64Encoded: image.bytes) != served[id - 1] { avatarsDiffering.append(id) }
                }
                #expect(avatarsDiffering.isEmpty, "avatars not the character's own, byte for byte: \(avatarsDiffering)")
                for country in ["Japan", "France", "Brazil"] {
                    let list = try await client.call(RPCMethods.universitiesList, .init(country: country))
                    #expect(
                        list.items.map(\.name)
                            == UniversityFixtures.records(country: country).map { $0["name"] as! String }, "\(country)")
                    #expect(list.freshness.stale)
                }
                let search = try await client.call(RPCMethods.universitiesList, .init(name: "tokyo"))
                let expectedNames = UniversityFixtures.world.filter {
                    ($0["name"] as! String).lowercased().contains("tokyo")
                }.map { $0["name"] as! String }
                #expect(
                    search.country == allCountries && Set(search.items.map(\.name)) == Set(expectedNames)
                        && search.count == expectedNames.count)
                let health = try await client.call(RPCMethods.charactersHealth, NoParams())
                #expect(health.mirror?.complete == true && health.mirror?.records == 493 + 76 + 31)
                FaultReport.record(
                    "10. offline",
                    """
                    \(Self.queries.count) list queries with the upstream stopped: items, order, count and pages as \
                    the upstream's rules give, each stale with the reason; get, getMany, locations, episodes, all 493 \
                    avatars byte for byte (each its character's own), 3 countries and a name search across \
                    \(search.count) universities answered offline
                    """
                )
                await client.close()
            }
        }

        @Test(
            """
            a fresh mirror answers 50 mixed reads with 0 upstream requests; a sync killed half way keeps the previous \
            mirror
            """
        )
        func freshMirrorAndInterruptedSync() async throws {
            try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
                var client = try await system.connect()
                _ = try await client.call(RPCMethods.charactersSync, NoParams(), timeout: .seconds(120))
                let before = try await client.call(RPCMethods.charactersHealth, NoParams()).mirror
                system.characterUpstream.resetRequests()
                var reads = 0
                for index in 0..<10 {
                    let (resource, params) = Self.queries[index * 3 % Self.queries.count]
                    #expect(try await Self.call(client, resource, params).result != nil)
                    _ = try await client.call(RPCMethods.charactersGet, IDParams(id: index * 40 + 1))
                    _ = try await client.call(RPCMethods.charactersGetMany, IDsParams(ids: [index + 1, index + 100]))
                    _ = try await client.call(RPCMethods.charactersImage, IDParams(id: index * 7 + 1))
                    _ =
                        index.isMultiple(of: 2)
                        ? try await client.call(RPCMethods.charactersStats, NoParams()).total
                        : try await client.call(RPCMethods.locationsGet, IDParams(id: index + 1)).location.id
                    reads += 5
                }
                #expect(reads == 50)
                // Ids past the mirror do not exist: known without the upstream.
                #expect(
                    await rpcError { try await client.call(RPCMethods.charactersGet, IDParams(id: 9999)) }?.code
                        == .notFound)
                let beyond = try await client.call(RPCMethods.charactersGetMany, IDsParams(ids: [1, 9999]))
                #expect(beyond.missingIds == [9999] && beyond.uncheckedIds.isEmpty)
                #expect(
                    system.characterUpstream.requestCount == 0,
                    "upstream requests: \(system.characterUpstream.requests.prefix(3).map(\.target))")
                // A figure, not a check: local list queries straight to the service.
                let figures = try await Self.localQueryLatencies(system)
                FaultReport.record(
                    "10. local list queries",
                    """
                    200 queries with filters over the mirror, straight to the CharacterService (debug build): median \
                    \(ms(figures.median)), p99 \(ms(figures.p99))
                    """
                )
                // A second sync, killed half way: the previous mirror stays in force.
                system.characterUpstream.latency = .milliseconds(50)
                let sync = Task { [client] in
                    try? await client.call(RPCMethods.charactersSync, NoParams(), timeout: .seconds(120))
                }
                try await waitUntil(20, "the second sync under way") { system.characterUpstream.requestCount >= 10 }
                system.kill(.characters)
                _ = await sync.value
                try await system.restart(.characters)
                system.characterUpstream.fault = .down
                client = try await system.connect()
                let reconnected = client
                try await waitUntil(10, "the Gateway reaches the restarted service") {
                    (try? await reconnected.call(RPCMethods.charactersHealth, NoParams())) != nil
                }
                let after = try await client.call(RPCMethods.charactersHealth, NoParams()).mirror
                #expect(after == before, "the mirror of the first sync: \(String(describing: after))")
                let page = try await client.call(RPCMethods.charactersList, .init(page: 3, status: "dead"))
                let expected = Self.expected("character", ["status": "dead", "page": "3"])
                #expect(page.items.map(\.id) == expected.ids && page.count == expected.count)
                FaultReport.record(
                    "10. fresh mirror",
                    """
                    50 mixed reads (lists with filters, get, getMany, avatars, stats, locations): 0 upstream \
                    requests; a sync killed half way left the previous mirror in force
                    """
                )
                // The same over 826 characters (today's public data set): the records copied
                // under new ids while the service is stopped.
                system.kill(.characters, SIGTERM)
                _ = try await system.process(.characters)!.waitForExit()
                try await DatabaseQueue(path: system.database(.characters)).write { db in
                    try db.execute(
                        sql:
                            """
                            INSERT INTO character (id, name, status, related, json, fetchedAt, nameKey, statusKey, \
                            speciesKey, typeKey, genderKey) SELECT id + 493, name, status, related, json, fetchedAt, \
                            nameKey, statusKey, speciesKey, typeKey, genderKey FROM character WHERE id <= 333
                            """
                    )
                    try db.execute(sql: "UPDATE mirror SET characters = 826")
                }
                try await system.restart(.characters)
                let bigger = try await Self.localQueryLatencies(system)
                FaultReport.record(
                    "10. local list queries, 826 characters",
                    "median \(ms(bigger.median)), p99 \(ms(bigger.p99)) (debug build)")
                await client.close()
            }
        }
    }
}

/// Any record, by its id only.
struct Identified: Codable, Sendable {
    var id: Int
}
