import Foundation
import GRDB
import NIOCore
import ServiceKit
import Messaging
import RnmAPI
import TestSupport
import Testing
@testable import CharacterService

/// Fresh reads answered again from finished replies, and never after their data changed.
@Suite("CharacterService reply cache", .cleansUp)
struct ReplyCacheTests {
    @Test("a repeated fresh read gives the same bytes; after a refresh writes, the next read shows the new data")
    func invalidatedByWrites() async throws {
        let harness = try await CharacterHarness.start(maxAge: 600)
        _ = try await harness.call(RPCMethods.charactersList, CharacterListParams())  // fetched and stored
        let cached = try await harness.call(RPCMethods.charactersList, CharacterListParams())
        #expect(cached.freshness.source == .cache)
        let again = try await harness.call(RPCMethods.charactersList, CharacterListParams())
        #expect(again == cached)
        let requestsBefore = harness.requests("character").count
        // A refresh stores the page again with a later fetchedAt (whole seconds): a whole answer,
        // not a 304 (which renews the copy's age and changes no answer: the reply is kept).
        harness.upstream.sendsETags = false
        try await waitUntil(3, "the clock reaches the next second") { Date().rfc3339 != cached.freshness.fetchedAt }
        let refreshed = try await harness.call(RPCMethods.charactersRefresh, CharacterListParams())
        #expect(harness.requests("character").count == requestsBefore + 1)
        let after = try await harness.call(RPCMethods.charactersList, CharacterListParams())
        #expect(after.freshness.source == .cache)
        #expect(after.freshness.fetchedAt == refreshed.freshness.fetchedAt)
        #expect(after.freshness.fetchedAt != cached.freshness.fetchedAt)
    }

    @Test("a refresh the upstream answers with 304 writes no answer: one conditional request, and the kept reply stays")
    func notModifiedKeepsReplies() async throws {
        let harness = try await CharacterHarness.start(maxAge: 600)
        _ = try await harness.call(RPCMethods.charactersList, CharacterListParams())  // fetched and stored
        let cached = try await harness.call(RPCMethods.charactersList, CharacterListParams())
        let refreshed = try await harness.call(RPCMethods.charactersRefresh, CharacterListParams())
        #expect(harness.upstream.notModifiedCount == 1, "asked with the page's ETag, answered 304")
        #expect(refreshed.freshness.source == .upstream && refreshed.items == cached.items)
        let after = try await harness.call(RPCMethods.charactersList, CharacterListParams())
        #expect(after == cached, "the same reply: nothing an answer holds changed")
    }

    @Test("a stale answer or one just fetched is never given again: the upstream is asked each time")
    func onlyFreshAnswersAreKept() async throws {
        let harness = try await CharacterHarness.start(maxAge: 0)
        for _ in 0..<3 {
            let detail = try await harness.call(RPCMethods.charactersGet, IDParams(id: 2))
            #expect(detail.freshness.source == .upstream)
        }
        #expect(harness.requests("character/2").count == 3)
    }
}

/// Issue 29 loose end: a read that marks a page used (a write of `usedAt`) once could empty
/// the whole reply cache.
@Suite("Reply cache invalidation", .cleansUp)
struct ReplyCacheInvalidationTests {
    @Test("updates of bookkeeping columns alone keep the replies; any other change empties them")
    func bookkeepingKeepsReplies() async throws {
        let pool = try DatabasePool(path: temporaryDirectory() + "/invalidation.sqlite")
        try await pool.write { db in
            try db.execute(sql: "CREATE TABLE page (id INTEGER PRIMARY KEY, json TEXT, fetchedAt REAL, usedAt REAL)")
            try db.execute(sql: "INSERT INTO page VALUES (1, '{}', 0, 0)")
        }
        let cache = ExpiringCache<ByteBuffer>(maxBytes: 1 << 20)
        pool.invalidateOnCommit(cache)
        let store = { cache.store(ByteBuffer(string: "reply"), for: "key", size: 5, expires: .now + .seconds(60)) }
        store()
        try await pool.write { db in try db.execute(sql: "UPDATE page SET usedAt = 1, fetchedAt = 1") }
        #expect(cache.entry(for: "key") != nil, "a page marked used changes no answer")
        try await pool.write { db in try db.execute(sql: "UPDATE page SET json = '[]'") }
        #expect(cache.entry(for: "key") == nil)
        store()
        try await pool.write { db in try db.execute(sql: "INSERT INTO page VALUES (2, '{}', 0, 0)") }
        #expect(cache.entry(for: "key") == nil)
        try pool.close()
    }
}
