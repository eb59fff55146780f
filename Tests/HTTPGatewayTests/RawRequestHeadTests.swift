@testable import HTTPGateway
import Testing

/// Issue 40: the reader that frames requests before NIO's decoder. What it answers itself must be
/// plain; everything else must reach NIO's decoder as the bytes that came.
@Suite("HTTPGateway: a request's head read from its bytes")
struct RawRequestHeadTests {
    static func read(_ text: String) -> RawRequestHead {
        Array(text.utf8).withUnsafeBytes(RawRequestHead.read)
    }

    @Test("a plain GET: its length, target and the three fields a hit reads, names in any case")
    func plainGet() {
        let text =
            "GET /api/character/1?x=%20 HTTP/1.1\r\nHost: a\r\nACCEPT-encoding:  gzip, br \r\n"
            + "If-None-Match: \"t\"\r\ntraceparent:\t00-ab\r\n\r\nGET /next"
        let hit = RawRequestHead.HitRequest(
            method: .get, target: "/api/character/1?x=%20", acceptEncoding: "gzip, br", ifNoneMatch: "\"t\"",
            traceparent: "00-ab")
        #expect(Self.read(text) == .framed(length: text.utf8.count - "GET /next".utf8.count, bodyLength: 0, hit: hit))
        let head = Self.read("HEAD / HTTP/1.1\r\n\r\n")
        #expect(head == .framed(length: 19, bodyLength: 0, hit: .init(method: .head, target: "/")))
    }

    @Test("GraphQL's POST, as the router matches its path: a hit with its body's length, Accept and Content-Type")
    func graphQLPost() {
        let text =
            "POST /GraphQL/ HTTP/1.1\r\nContent-Type:  application/json \r\nAccept: */*\r\nContent-Length: 17\r\n\r\n"
        let hit = RawRequestHead.HitRequest(
            method: .post, target: "/GraphQL/", graphQL: true, accept: "*/*", contentType: "application/json")
        #expect(Self.read(text) == .framed(length: text.utf8.count, bodyLength: 17, hit: hit))
        // A GET of GraphQL's is found by the request as sent too; a REST read reads neither field.
        let get = "GET /graphql?query=%7Bx%7D HTTP/1.1\r\nAccept: a\r\n\r\n"
        let getHit = RawRequestHead.HitRequest(
            method: .get, target: "/graphql?query=%7Bx%7D", graphQL: true, accept: "a")
        #expect(Self.read(get) == .framed(length: get.utf8.count, bodyLength: 0, hit: getHit))
        let rest = "GET /api HTTP/1.1\r\nAccept: a\r\nContent-Type: b\r\n\r\n"
        #expect(
            Self.read(rest) == .framed(length: rest.utf8.count, bodyLength: 0, hit: .init(method: .get, target: "/api"))
        )
    }

    @Test("every prefix of a head is incomplete, never a guess")
    func prefixes() {
        let text = "GET /api/character/2 HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\n\r\n"
        let bytes = Array(text.utf8)
        for count in 0..<bytes.count {
            let result = Array(bytes.prefix(count)).withUnsafeBytes(RawRequestHead.read)
            #expect(result == .incomplete, "\(count) bytes: \(result)")
        }
    }

    @Test("framed but not a hit: a body, another method, Expect, a field twice, a target not a path")
    func framedOnly() {
        let post = "POST /api/character HTTP/1.1\r\nContent-Length: 12\r\n\r\n"
        #expect(Self.read(post) == .framed(length: post.utf8.count, bodyLength: 12, hit: nil))
        // GraphQL's path: a POST without a body (refused there: no request), a read with one.
        for text in [
            "POST /graphql HTTP/1.1\r\n\r\n", "POST /graphql HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
            "GET /graphql?query=x HTTP/1.1\r\nContent-Length: 3\r\n\r\n",
            "POST /graphqlx HTTP/1.1\r\nContent-Length: 3\r\n\r\n",
            "POST /graphql HTTP/1.1\r\nContent-Length: 3\r\nAccept: a\r\naccept: b\r\n\r\n",
        ] {
            guard case .framed(_, _, nil) = Self.read(text) else {
                Issue.record("\(text.debugDescription): \(Self.read(text))")
                continue
            }
        }
        #expect(
            Self.read("GET / HTTP/1.1\r\ncontent-length: 3\r\n\r\n") == .framed(length: 37, bodyLength: 3, hit: nil))
        for text in [
            "DELETE /a HTTP/1.1\r\n\r\n", "GET /a HTTP/1.1\r\nExpect: 100-continue\r\n\r\n",
            "GET /a HTTP/1.1\r\nIf-None-Match: a\r\nif-none-match: b\r\n\r\n",
            "GET http://a/a HTTP/1.1\r\n\r\n", "GET * HTTP/1.1\r\n\r\n",
        ] {
            guard case .framed(_, 0, nil) = Self.read(text) else {
                Issue.record("\(text.debugDescription): \(Self.read(text))")
                continue
            }
        }
    }

    @Test("framed but not a hit: more fields than a hit has (NIO's decoder counts them against its limit)")
    func manyFields() {
        let head = { (count: Int) in "GET /a HTTP/1.1\r\n" + String(repeating: "a: b\r\n", count: count) + "\r\n" }
        #expect(
            Self.read(head(100))
                == .framed(length: head(100).utf8.count, bodyLength: 0, hit: .init(method: .get, target: "/a")))
        #expect(Self.read(head(101)) == .framed(length: head(101).utf8.count, bodyLength: 0, hit: nil))
    }

    @Test(
        "Connection: keep-alive (browsers send it) is a hit; any other Connection, Upgrade, HTTP/1.0: NIO's from there")
    func connection() {
        let keepAlive = "GET /a HTTP/1.1\r\nConnection: Keep-Alive\r\n\r\n"
        #expect(
            Self.read(keepAlive)
                == .framed(length: keepAlive.utf8.count, bodyLength: 0, hit: .init(method: .get, target: "/a")))
        for text in [
            "GET /a HTTP/1.1\r\nConnection: close\r\n\r\n",
            "GET /a HTTP/1.1\r\nConnection: keep-alive, Upgrade\r\n\r\n",
            "GET /a HTTP/1.1\r\nUpgrade: h2c\r\n\r\n", "GET /a HTTP/1.0\r\n\r\n",
            "GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        ] {
            #expect(Self.read(text) == .unframed, "\(text.debugDescription)")
        }
    }

    @Test("left to NIO's decoder: chunked, a bare LF, a folded line, control bytes, other versions, bad lengths")
    func unframed() {
        for text in [
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", "GET / HTTP/1.1\nHost: a\n\n",
            "GET / HTTP/1.1\r\nA: b\r\n c\r\n\r\n", "GET / HTTP/1.1\r\nA: b\u{0}c\r\n\r\n",
            "GET / HTTP/1.1\r\nA: b\rc\r\n\r\n", "GET / HTTP/2.0\r\n\r\n", "GET / HTTP/1.1\r\nBad Name: a\r\n\r\n",
            "GET / HTTP/1.1\r\n: a\r\n\r\n", "GET  / HTTP/1.1\r\n\r\n", "GET /\u{7F} HTTP/1.1\r\n\r\n",
            "GET /é HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n",
            "GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
            "GET / HTTP/1.1\r\nContent-Length: 1234567890123456789\r\n\r\n",
            "GET / HTTP/1.1\r\nContent-Length:\r\n\r\n", "\r\nGET / HTTP/1.1\r\n\r\n",
        ] {
            #expect(Self.read(text) == .unframed, "\(text.debugDescription)")
        }
    }
}
