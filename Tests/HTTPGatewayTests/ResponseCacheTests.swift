@testable import HTTPGateway
import Messaging
import NIOCore
import Testing

/// What the micro-cache keeps of an answer, by its size against the budget.
@Suite("HTTPGateway: the micro-cache's budget")
struct ResponseCacheTests {
    /// A JSON body of `count` hex digits: gzip halves it, no more.
    static func body(_ count: Int) -> ByteBuffer {
        var generator = SystemRandomNumberGenerator()
        let digits = (0..<count).map { _ in "0123456789abcdef".randomElement(using: &generator)! }
        return ByteBuffer(string: "{\"a\":\"\(String(digits))\"}")
    }

    @Test("an answer that fits alone but not with its gzipped copy is kept alone; one that fits with it, with it")
    func keptAloneWhenItsCopyDoesNotFit() throws {
        let key = "graphql"
        let large = Self.body(60_000)
        // A quarter of the budget holds the body, not the body and its copy (about half of it).
        let cache = ResponseCache(ttl: .seconds(60), maxBytes: 4 * (large.readableBytes + key.utf8.count + 64 + 1000))
        let json = "application/json; charset=utf-8"
        let stored = try #require(cache.store(key, body: large, contentType: json, age: 0))
        #expect(stored.gzipped == nil)
        let kept = try #require(cache.lookup(key))
        #expect(kept.entry.body == large && kept.entry.gzipped == nil)

        let small = Self.body(20_000)
        let withCopy = try #require(cache.store("small", body: small, contentType: json, age: 0))
        #expect(withCopy.gzipped != nil)
        #expect(cache.lookup("small")?.entry.gzipped != nil)
    }

    @Test("a kept answer's pre-built heads are counted against the budget as the memory they hold")
    func headsCountedWhole() throws {
        let cache = ResponseCache(ttl: .seconds(60), maxBytes: 1 << 20)
        let json = "application/json; charset=utf-8"
        let entry = try #require(cache.store("/api/character/", body: Self.body(4000), contentType: json, age: 0))
        let heads = try [false, true].map { gzip in
            try #require(entry.okHead(for: entry.hit(.get, acceptEncoding: gzip ? "gzip" : nil, ifNoneMatch: nil)))
        }
        let held = entry.body.readableBytes + (entry.gzipped?.readableBytes ?? 0) + heads.map(\.capacity).reduce(0, +)
        #expect(entry.storedBytes == held)
        #expect(
            heads.allSatisfy { $0.capacity < 2 * $0.readableBytes }, "\(heads.map { ($0.readableBytes, $0.capacity) })")
    }

    @Test("an answer that fits with its copy but not with their heads too is kept alone, not dropped")
    func keptAloneWhenHeadsDoNotFit() throws {
        let key = "graphql"
        let json = "application/json; charset=utf-8"
        let body = Self.body(20_000)
        let copy = try #require(ResponseCache.gzip(body, contentType: json))
        // A quarter of the budget holds the body and its copy, and nothing more.
        let cache = ResponseCache(
            ttl: .seconds(60), maxBytes: 4 * (body.readableBytes + copy.readableBytes + key.utf8.count + 64))
        let stored = cache.store(key, body: body, contentType: json, age: 0)
        let kept = try #require(cache.lookup(key), "not kept: each repeat would be answered again")
        #expect(stored === kept.entry && kept.entry.gzipped == nil)
    }

    @Test(
        """
        a GraphQL answer's second key (the request as sent) is charged the answer again: keys sent for answers \
        since evicted hold no more bytes than the budget
        """
    )
    func sentKeysCharged() throws {
        let json = "application/json; charset=utf-8"
        let body = Self.body(10_000)
        let entrySize = try #require(
            ResponseCache.entry(
                "k", body: body, contentType: json, age: 0, route: "/graphql",
                keptIn: ExpiringCache(maxBytes: 1 << 20))
        ).storedBytes
        // Room for eight answers, whatever keys they are held by.
        let cache = ResponseCache(ttl: .seconds(60), maxBytes: 8 * (entrySize + 100))
        let store = { (index: Int) in
            _ = cache.store("answer \(index)", body: Self.body(10_000), contentType: json, age: 0)
        }
        // Eight answers, then their keys as sent (repeats answered later), then eight more answers:
        // the first eight are evicted from under their own keys, and only the keys as sent hold them.
        for index in 0..<8 { store(index) }
        for index in 0..<8 { cache.alias("sent \(index)", to: "answer \(index)") }
        for index in 8..<16 { store(index) }
        let held = (0..<16).flatMap { index in
            ["answer \(index)", "sent \(index)"].compactMap { cache.lookup($0)?.entry }
        }
        let distinct = Set(held.map(ObjectIdentifier.init))
        #expect(distinct.count <= 8, "\(distinct.count) answers held, room for 8")
        #expect(cache.lookup("answer 15") != nil)
    }
}
