import Foundation
import GRDB
import Messaging
import RnmAPI
import Synchronization
import TestSupport
import Testing

/// Issue 29, row 8, and the clock stepped back: which copy of a record the cache keeps.
@Suite("CharacterService keeps the newer copy", .cleansUp)
struct CopyOrderTests {
    @Test("a slow page asked before Rick was renamed, answered after a refresh stored the new name, keeps the new")
    func slowFetchNeverOverwritesNewer() async throws {
        let renamed = Mutex(false)
        let fixtures = RickAndMortyFixtures()
        let upstream = try await TestUpstream.start { request in
            var answer = fixtures.route(request)
            if renamed.withLock({ $0 }) {
                let text = String(decoding: answer.body, as: UTF8.self)
                answer.body = Array(text.replacingOccurrences(of: "Rick Sanchez", with: "Rick Sanchez (renamed)").utf8)
            }
            // The unfiltered page 1 is slow: it is answered 1.5 s after it is asked.
            if request.path == "/api/character", request.query["name"] == nil { answer.delay = .milliseconds(1500) }
            return answer
        }
        let harness = try await CharacterHarness.start(maxAge: 600, upstream: (upstream, fixtures))
        let slow = Task { try await harness.call(RPCMethods.charactersList, .init()) }
        try await waitUntil(5, "page 1 asked") { harness.requests("character").count == 1 }
        renamed.withLock { $0 = true }
        let refreshed = try await harness.call(RPCMethods.charactersRefresh, .init(name: "rick sanchez"))
        #expect(refreshed.items.first?.name == "Rick Sanchez (renamed)")
        // The slow answer (the old name) arrives after the refresh stored the new one; its
        // caller is answered with the records as stored.
        _ = try await slow.value
        #expect(upstream.requests.count == 2)
        let rick = try await harness.call(RPCMethods.charactersGet, .init(id: 1))
        #expect(rick.character.name == "Rick Sanchez (renamed)")
        #expect(!rick.freshness.stale && rick.freshness.source == .cache)
        let page = try await harness.call(RPCMethods.charactersList, .init())
        #expect(page.items.first?.name == "Rick Sanchez (renamed)", "the page lists the record as stored")
        try await harness.stop()
    }

    @Test("a copy dated an hour ahead (the clock stepped back) is not fresh: asked again, and replaced")
    func futureCopyIsNotFresh() async throws {
        let harness = try await CharacterHarness.start(maxAge: 600)
        _ = try await harness.call(RPCMethods.charactersList, .init())  // stores characters 1 to 20
        let database = try DatabaseQueue(path: harness.databasePath)
        try await database.write { db in
            try db.execute(sql: "UPDATE character SET fetchedAt = fetchedAt + 3600 WHERE id = 2")
        }
        harness.upstream.resetRequests()
        let morty = try await harness.call(RPCMethods.charactersGet, .init(id: 2))
        #expect(morty.freshness.source == .upstream)
        #expect(harness.requests("character/2").count == 1)
        // Stored again, dated now: the next read is the cache's.
        let again = try await harness.call(RPCMethods.charactersGet, .init(id: 2))
        #expect(again.freshness.source == .cache && harness.requests("character/2").count == 1)
        try await harness.stop()
    }
}
