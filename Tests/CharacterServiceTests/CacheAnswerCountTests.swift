import Foundation
import Messaging
import RnmAPI
import TestSupport
import Testing

@Suite("CharacterService: each read counted once, by how the cache rule answered it", .cleansUp)
struct CacheAnswerCountTests {
    @Test(
        "rnm_cache_answers_total: a getMany is one answer (fetched, then from the database), a get from the cache one")
    func counted() async throws {
        let harness = try await CharacterHarness.start()
        _ = try await harness.call(RPCMethods.charactersGetMany, .init(ids: [1, 2, 3]))
        #expect(try await answers(harness) == ["fetched": 1])
        // Other params than the first, so that the route runs (not the reply cache).
        let cached = try await harness.call(RPCMethods.charactersGetMany, .init(ids: [3, 2, 1]))
        #expect(cached.items.map(\.id) == [3, 2, 1])
        #expect(try await answers(harness) == ["fetched": 1, "database": 1])
        // Fresh in the cache, its episodes not yet: the record is a cache answer.
        _ = try await harness.call(RPCMethods.charactersGet, .init(id: 2))
        #expect(try await answers(harness) == ["fetched": 1, "database": 2])
        // Fresh with its episodes (Summer's are among Morty's, fetched for him): the fast path,
        // one database read, counted the same.
        let requests = harness.upstream.requests.count
        _ = try await harness.call(RPCMethods.charactersGet, .init(id: 3))
        #expect(harness.upstream.requests.count == requests)
        #expect(try await answers(harness) == ["fetched": 1, "database": 3])
        try await harness.stop()
    }

    private func answers(_ harness: CharacterHarness) async throws -> [String: Int] {
        try Exposition(try await harness.call(RPCMethods.charactersMetrics, .init()).exposition).cacheAnswers
    }
}
