@testable import HTTPGateway
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
}
