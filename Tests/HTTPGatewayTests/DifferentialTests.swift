import Foundation
@testable import HTTPGateway
import Messaging
import RnmAPI
import TestSupport
import Testing

/// The HTTPGateway against the test upstream it stands in for: for every path of the table,
/// the same status and the same JSON as the upstream gives for the same path (its links
/// rewritten to rnm's base), online; then, after a sync with the upstream stopped, the same
/// answers again, saying they are stale.
@Suite("HTTPGateway: the public APIs' answers, online and offline", .serialized, .cleansUp)
struct DifferentialTests {
    static let publicURL = "http://rnm.test"

    /// Paths whose results are compared without their order (a search across countries: rnm
    /// answers country by country, the upstream in its file's order).
    static let unordered: Set<String> = ["/search?name=Khalifa", "/search?name=institute%20of%20tech"]

    static let table: [String] = [
        // The root, with and without the slash.
        "/api", "/api/",
        // Character pages: the page rules, filters trimmed and decoded, next/prev repeating them.
        "/api/character", "/api/character/", "/api/character?page=2", "/api/character/?page=3",
        "/api/character?page=25", "/api/character?page=26", "/api/character?page=0", "/api/character?page=abc",
        "/api/character?page=-3", "/api/character?page=1000001", "/api/character?page=99999999999",
        "/api/character?page=2.7",
        "/api/character?name=rick", "/api/character?name=rick&page=2",
        "/api/character?name=%20rick%20", "/api/character?name=Rick%20Sanchez", "/api/character?name=rick+sanchez",
        "/api/character?status=alive&gender=female", "/api/character?gender=male", "/api/character?gender=Male&page=3",
        "/api/character?species=Humanoid&page=2", "/api/character?type=Parasite",
        "/api/character?name=Mr.%20Poopybutthole",
        "/api/character?name=nobody-by-this-name", "/api/character?status=Dead&name=morty",
        "/api/character?page=2&name=morty&foo=bar", "/api/character?name=%C3%A9",
        "/api/character?status=unknown&species=alien",
        // Character records: one, several, the upstream's errors.
        "/api/character/1", "/api/character/1/", "/api/character/493", "/api/character/494", "/api/character/0",
        "/api/character/abc", "/api/character/1,2,3", "/api/character/3,1,2,1", "/api/character/[1,2,3]",
        "/api/character/[1,2,9999]", "/api/character/1,2]", "/api/character/[1,2", "/api/character/[abc]",
        "/api/character/[]", "/API/Character/2", "/api/character/1,2.5", "/api/character/[1.5,2]",
        "/api/character/%5B%221%22,2%5D", "/api/character/[1,null]", "/api/character/1.5", "/api/character/1e2",
        "/api/character/12abc", "/api/character/99999999999999999999",
        // Avatars.
        "/api/character/avatar/1.jpeg", "/api/character/avatar/7.jpeg", "/api/character/avatar",
        "/api/character/avatar/9999.jpeg", "/api/character/avatar/1.png",
        // Locations.
        "/api/location", "/api/location?page=2", "/api/location?name=earth",
        "/api/location?type=planet&dimension=C-137",
        "/api/location?dimension=unknown", "/api/location/1", "/api/location/1,2,3", "/api/location/[3,20]",
        "/api/location/999", "/api/location?page=7",
        // Episodes.
        "/api/episode", "/api/episode?page=2", "/api/episode?episode=S01", "/api/episode?name=pilot",
        "/api/episode?episode=s02e0", "/api/episode/1", "/api/episode/1,2", "/api/episode/99", "/api/episode?page=3",
        // Unknown paths.
        "/api/nothing", "/api/character/1/2", "/nothing",
        // Universities.
        "/search?country=United%20Arab%20Emirates", "/search?country=united+arab+emirates",
        "/search?country=Japan&name=tokyo",
        "/search?country=Turkey&name=%C3%BCniversitesi", "/search?name=Khalifa", "/search?name=institute%20of%20tech",
        "/search?country=Atlantis",
    ]

    struct Answer {
        var status: Int
        var contentType: String?
        var body: [UInt8]
    }

    @Test("every path of the table answers as the upstream does, online; then offline after a sync, stale")
    func upstreamAndRnmAgree() async throws {
        #expect(Self.table.count >= 40)
        // The world list is one large upstream answer: more time than the suite's 1.5 s.
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "0", "RNM_UPSTREAM_TIMEOUT_MS": "10000"]) {
            system in
            system.characterFixtures.linkBase = Self.publicURL + "/api"
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: Self.publicURL)
            let client = try await system.connect()
            // A search by name across countries needs the world mirror.
            _ = try await client.call(RPCMethods.universitiesSync, NoParams(), timeout: .seconds(60))

            var expected: [String: Answer] = [:]
            for path in Self.table {
                let upstream = try await Self.upstream(system, path)
                let mine = try await http.get(path)
                expected[path] = upstream
                Self.compare(path, mine, upstream, phase: "online")
                if mine.status == 200, path.hasPrefix("/api/") && path != "/api/" || path.hasPrefix("/search") {
                    #expect(mine.header("Cache-Status") != nil, "online \(path): no Cache-Status")
                }
            }

            // Offline: everything synced, the upstream gone.
            _ = try await client.call(RPCMethods.charactersSync, NoParams(), timeout: .seconds(120))
            await client.close()
            system.characterUpstream.fault = .down
            system.universityUpstream.fault = .down
            for path in Self.table {
                let mine = try await http.get(path)
                Self.compare(path, mine, expected[path]!, phase: "offline")
                if mine.status == 200, mine.header("Content-Type")?.hasPrefix("application/json") == true,
                    path != "/api", path != "/api/"
                {
                    #expect(
                        mine.header("Cache-Status")?.contains("fwd=stale") == true,
                        "offline \(path): Cache-Status \(mine.header("Cache-Status") ?? "missing")")
                    #expect(mine.header("Age").flatMap(Int.init) != nil, "offline \(path): no Age")
                }
            }
            try await http.server.stop()
        }
    }

    static func upstream(_ system: RnmSystem, _ path: String) async throws -> Answer {
        let base = path.hasPrefix("/search") ? system.universityUpstream.baseURL : system.characterUpstream.baseURL
        let port = Int(base.split(separator: ":").last!)!
        let response = try await HTTPProbe.request(port: port, target: path)
        return Answer(status: response.status, contentType: response.header("Content-Type"), body: response.body)
    }

    static func compare(_ path: String, _ mine: HTTPProbeResponse, _ upstream: Answer, phase: String) {
        #expect(
            mine.status == upstream.status,
            "\(phase) \(path): status \(mine.status), upstream \(upstream.status): \(mine.text.prefix(300))")
        #expect(mine.header("Access-Control-Allow-Origin") == "*", "\(phase) \(path)")
        if upstream.contentType?.hasPrefix("image/") == true {
            // The type of the bytes themselves (the upstream names every avatar .jpeg; two of
            // the fixtures are PNG files).
            let png = mine.body.starts(with: [0x89, 0x50, 0x4E, 0x47])
            #expect(mine.header("Content-Type") == (png ? "image/png" : "image/jpeg"), "\(phase) \(path)")
            #expect(
                mine.body == upstream.body,
                "\(phase) \(path): \(mine.body.count) bytes, upstream \(upstream.body.count)")
            return
        }
        guard var left = jsonValue(mine.body), var right = jsonValue(upstream.body) else {
            Issue.record(
                """
                \(phase) \(path): not JSON: \(mine.text.prefix(200)) / \
                \(String(decoding: upstream.body, as: UTF8.self).prefix(200))
                """
            )
            return
        }
        if unordered.contains(path), let a = left as? [NSDictionary], let b = right as? [NSDictionary] {
            let key = { (record: NSDictionary) in "\(record["country"] ?? "")|\(record["name"] ?? "")" }
            left = a.sorted { key($0) < key($1) } as NSArray
            right = b.sorted { key($0) < key($1) } as NSArray
        }
        #expect(
            left.isEqual(right),
            """
            \(phase) \(path): rnm \(mine.text.prefix(400))\nupstream \
            \(String(decoding: upstream.body, as: UTF8.self).prefix(400))
            """
        )
    }
}
