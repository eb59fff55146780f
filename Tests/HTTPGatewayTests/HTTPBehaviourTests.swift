import Foundation
#if canImport(Glibc)
    import Glibc
#endif
@testable import HTTPGateway
import Messaging
import RnmAPI
import TestSupport
import Testing

/// HTTP done properly: key order, methods, freshness headers, failures, limits.
@Suite("HTTPGateway: HTTP behaviour", .serialized, .cleansUp)
struct HTTPBehaviourTests {
    static let publicURL = "http://rnm.test"

    @Test("records and pages carry the API's keys in the API's order, every link on RNM_PUBLIC_URL")
    func keyOrder() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: Self.publicURL + "/")
            let character = try await http.get("/api/character/1")
            #expect(
                objectKeys(character.text) == [
                    "id", "name", "status", "species", "type", "gender", "origin", "name", "url",
                    "location", "name", "url", "image", "episode", "url", "created",
                ])
            #expect(character.text.contains(#""image":"http://rnm.test/api/character/avatar/1.jpeg""#))
            #expect(character.text.contains(#""episode":["http://rnm.test/api/episode/1","#))
            #expect(!character.text.contains("rickandmortyapi.com"))
            let location = try await http.get("/api/location/1")
            #expect(objectKeys(location.text) == ["id", "name", "type", "dimension", "residents", "url", "created"])
            let episode = try await http.get("/api/episode/1")
            #expect(objectKeys(episode.text) == ["id", "name", "air_date", "episode", "characters", "url", "created"])
            let page = try await http.get("/api/character/?page=2&status=alive")
            #expect(Array(objectKeys(page.text).prefix(6)) == ["info", "count", "pages", "next", "prev", "results"])
            #expect(
                page.text.contains(
                    #"""
                    "next":"http://rnm.test/api/character/?page=3&status=alive",\#
                    "prev":"http://rnm.test/api/character/?page=1&status=alive"
                    """#
                ))
            let universities = try await http.get("/search?country=United%20Arab%20Emirates")
            #expect(
                Array(objectKeys(universities.text).prefix(6)) == [
                    "alpha_two_code", "country", "domains", "name", "state-province", "web_pages",
                ])
            #expect(universities.header("Content-Type") == "application/json; charset=utf-8")
            try await http.server.stop()
        }
    }

    @Test("only GET and HEAD: 405 with Allow; HEAD gives GET's headers without the body; too long a target is 414")
    func methods() async throws {
        try await RnmSystem.with { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: Self.publicURL
            ) {
                $0.maxURLBytes = 200
            }
            for method in ["POST", "PUT", "DELETE", "PATCH"] {
                let response = try await http.get("/api/character/1", method: method)
                #expect(response.status == 405, "\(method)")
                #expect(response.header("Allow") == "GET, HEAD", "\(method)")
                #expect(response.text.contains("only reads"), "\(method): \(response.text)")
            }
            let get = try await http.get("/api/character/2")
            let head = try await http.get("/api/character/2", method: "HEAD")
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(head.header("Content-Length") == String(get.body.count))
            #expect(head.header("Content-Type") == get.header("Content-Type"))
            let long = try await http.get("/api/character?name=" + String(repeating: "a", count: 300))
            #expect(long.status == 414)
            #expect(long.text.contains("RNM_HTTP_MAX_URL_BYTES"))
            let preflight = try await http.get("/api/character/2", method: "OPTIONS")
            #expect(preflight.status == 204)
            #expect(preflight.header("Access-Control-Allow-Origin") == "*")
            #expect(preflight.header("Access-Control-Allow-Methods") == "GET, HEAD")
            try await http.server.stop()
        }
    }

    @Test("Cache-Status: a miss stored, then a hit with its Age; stale with the reason once the upstream fails")
    func freshnessHeaders() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: Self.publicURL)
            let first = try await http.get("/api/character/3")
            #expect(first.header("Cache-Status") == "rnm; fwd=miss; stored")
            #expect(first.header("Age") == "0")
            let second = try await http.get("/api/character/3")
            #expect(second.header("Cache-Status") == "rnm; hit")
            #expect(second.header("Age").flatMap(Int.init).map { $0 >= 0 } == true)
            #expect(second.body == first.body)
            // Universities are asked upstream first (max age 0): down, the cache answers, stale.
            _ = try await http.get("/search?country=United%20Arab%20Emirates")
            system.universityUpstream.fault = .status(503)
            let stale = try await http.get("/search?country=United%20Arab%20Emirates")
            #expect(stale.status == 200)
            let cacheStatus = stale.header("Cache-Status") ?? ""
            #expect(cacheStatus.hasPrefix("rnm; fwd=stale; detail=\""), "\(cacheStatus)")
            #expect(cacheStatus.contains("503"), "\(cacheStatus)")
            try await http.server.stop()
        }
    }

    @Test("the upstream down with nothing cached: 502; a service down: 503 with Retry-After; the Gateway down: 503")
    func failures() async throws {
        try await RnmSystem.with { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: Self.publicURL)
            system.characterUpstream.fault = .down
            let nothingCached = try await http.get("/api/character/7")
            #expect(nothingCached.status == 502, "\(nothingCached.text)")
            #expect(nothingCached.text.hasPrefix(#"{"error":"#))
            let list = try await http.get("/api/character?name=rick")
            #expect(list.status == 502)

            system.kill(.characters)
            _ = try await system.process(.characters)?.waitForExit()
            let serviceDown = try await http.get("/api/character/1")
            #expect(serviceDown.status == 503, "\(serviceDown.text)")
            #expect(serviceDown.header("Retry-After") == "1")
            #expect(serviceDown.text.contains("characters service is not running"), "\(serviceDown.text)")
            #expect(!serviceDown.text.contains(".sock"), "\(serviceDown.text)")
            // Universities still answer.
            let universities = try await http.get("/search?country=United%20Arab%20Emirates")
            #expect(universities.status == 200)

            system.kill(.gateway)
            _ = try await system.process(.gateway)?.waitForExit()
            let gatewayDown = try await http.get("/search?country=United%20Arab%20Emirates")
            #expect(gatewayDown.status == 503, "\(gatewayDown.text)")
            #expect(gatewayDown.header("Retry-After") == "1")
            #expect(gatewayDown.text.contains("its Gateway is not running"), "\(gatewayDown.text)")
            // Back: answered again without restarting the HTTPGateway.
            try system.launch(.gateway)
            try await system.waitUntilReady(.gateway)
            try await waitUntil(10, "the HTTPGateway reconnects") {
                (try? await http.get("/search?country=United%20Arab%20Emirates"))?.status == 200
            }
            try await http.server.stop()
        }
    }

    @Test("rnmctl status has an http line: up with its latency, or not running (which is no failure)")
    func statusLine() async throws {
        try await RnmSystem.with { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: Self.publicURL)
            let up = try await system.rnmctl("status", environment: ["RNM_HTTP_ADDRESS": "127.0.0.1:\(http.port)"])
            #expect(up.status == 0, "\(up.stderr)")
            #expect(up.stdout.contains("http: up at 127.0.0.1:\(http.port) ("), "\(up.stdout)")
            try await http.server.stop()
            let down = try await system.rnmctl("status", environment: ["RNM_HTTP_ADDRESS": "127.0.0.1:\(http.port)"])
            #expect(down.status == 0, "\(down.stderr)")
            #expect(down.stdout.contains("http: not running at 127.0.0.1:\(http.port)"), "\(down.stdout)")
        }
    }

    @Test(
        """
        an answer fresh from rnm's cache is answered again from memory for RNM_HTTP_CACHE_MS; a fetch, a stale answer \
        or an error never is
        """
    )
    func microCache() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: Self.publicURL
            ) {
                $0.cacheTTL = .seconds(60)
            }
            let fetched = try await http.get("/api/character/4")  // fwd=miss: not kept
            #expect(fetched.header("Cache-Status") == "rnm; fwd=miss; stored")
            let fresh = try await http.get("/api/character/5")
            #expect(fresh.header("Cache-Status") == "rnm; fwd=miss; stored")
            let hit = try await http.get("/api/character/5")  // rnm; hit: kept
            #expect(hit.header("Cache-Status") == "rnm; hit")
            // With the Gateway gone, the kept answer is still served, the others are not.
            system.kill(.gateway)
            _ = try await system.process(.gateway)?.waitForExit()
            let fromMemory = try await http.get("/api/character/5")
            #expect(fromMemory.status == 200 && fromMemory.body == hit.body)
            #expect(fromMemory.header("Cache-Status") == "rnm; hit")
            #expect(fromMemory.header("Access-Control-Allow-Origin") == "*")
            let head = try await http.get("/api/character/5", method: "HEAD")
            #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") == String(hit.body.count))
            #expect(try await http.get("/api/character/4").status == 503)
            #expect(try await http.get("/api/character/5?x=1").status == 503)  // another target, another key
            try await http.server.stop()
        }
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: Self.publicURL
            ) {
                $0.cacheTTL = .zero
            }
            _ = try await http.get("/api/character/5")
            #expect(try await http.get("/api/character/5").header("Cache-Status") == "rnm; hit")
            system.kill(.gateway)
            _ = try await system.process(.gateway)?.waitForExit()
            #expect(try await http.get("/api/character/5").status == 503)  // RNM_HTTP_CACHE_MS=0: off
            try await http.server.stop()
        }
    }

    @Test("the page rules of the id segment, as the API has them")
    func idSegments() {
        #expect(IDSegment("1") == .one(1))
        #expect(IDSegment("1,2,3") == .many([1, 2, 3]))
        #expect(IDSegment("1,") == .many([1, 0]))
        #expect(IDSegment("[1, 2]") == .many([1, 2]))
        #expect(IDSegment("[1]") == .many([1]))
        #expect(IDSegment("[]") == .badArray)
        #expect(IDSegment("1,2]") == .badArray)
        #expect(IDSegment("[1,2") == .badArray)
        #expect(IDSegment("x[1]") == .badArray)
        #expect(IDSegment("[a]") == .badArray)
        #expect(IDSegment("abc") == .badID)
        #expect(IDSegment("1,a") == .badID)
        // JavaScript numbers, then the database's cast.
        #expect(IDSegment("1,2.5") == .many([1]))
        #expect(IDSegment("[1.5,2]") == .many([2]))
        #expect(IDSegment(#"["1",2]"#) == .many([1, 2]))
        #expect(IDSegment("[1,null]") == .many([1]))
        #expect(IDSegment("[[1],2]") == .many([2]))
        #expect(IDSegment("99999999999999999999") == .absent)
        #expect(IDSegment("1.5") == .absent)
        #expect(IDSegment("1e2") == .one(100))
        #expect(IDSegment("12abc") == .badID)
        // Plain digits are read directly: the same as the general path's reading.
        #expect(IDSegment("007") == .one(7))
        #expect(IDSegment("0") == .one(0))
        #expect(IDSegment("2147483647") == .one(2_147_483_647))
        #expect(IDSegment("2147483648") == .absent)
        #expect(IDSegment("999999999999999999") == .absent)
        #expect(IDSegment("007,2147483648, 3,,4") == .many([7, 3, 0, 4]))
        #expect(IDSegment(" 5") == .one(5))
        // RNM_PUBLIC_URL unset: the links follow the address the front listens on.
        #expect(HTTPGatewayCommand.publicURL(host: "127.0.0.1", port: 18280) == "http://127.0.0.1:18280")
        #expect(HTTPGatewayCommand.publicURL(host: "0.0.0.0", port: 8080) == "http://127.0.0.1:8080")
        #expect(HTTPGatewayCommand.publicURL(host: "::1", port: 8081) == "http://[::1]:8081")
        #expect(PublicQuery("page=99999999999").page > 1_000_000)
        #expect(PublicQuery("page=2.7").page == 2)
        #expect(PublicQuery("page=2&name=%20rick+sanchez%20&page=5&x").pairs.map(\.key) == ["page", "name", "x"])
        #expect(PublicQuery("page=2&name=%20rick+sanchez%20").filter("name") == "rick sanchez")
        #expect(PublicQuery("page=0").page == 1)
        #expect(PublicQuery("page=abc").page == 1)
        #expect(PublicQuery("page=%203").page == 3)
        #expect(PublicQuery("name=a&status=b&foo=c&page=2").repeated(["name", "status"]) == "&name=a&status=b")
    }
}

extension HTTPBehaviourTests {
    @Test("an address already in use: the HTTP front exits saying which address, which setting and what to do")
    func addressInUse() async throws {
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(holder, $0, size) }
        }
        #expect(listen(holder, 1) == 0)
        var bound = sockaddr_in()
        var length = size
        _ = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(holder, $0, &length) }
        }
        let taken = "127.0.0.1:\(UInt16(bigEndian: bound.sin_port))"
        let output = try await ChildProcess.run(
            "HTTPGateway", [],
            environment: ["RNM_HTTP_ADDRESS": taken, "RNM_GATEWAY_SOCKET": temporaryDirectory() + "/none.sock"],
            seconds: 30)
        #expect(output.status != 0)
        let said = output.stderr
        #expect(said.contains("cannot listen on \(taken) (RNM_HTTP_ADDRESS or --address)"), "\(said)")
        #expect(said.contains("docker-compose down") && !said.contains("descriptor:ptr"), "\(said)")
    }
}
