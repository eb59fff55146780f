@testable import HTTPGateway
import Messaging
import NIOCore
import RnmAPI
import Synchronization
import TestSupport
import Testing

/// Issue 40: a kept answer repeated past `RNM_HTTP_CACHE_MS` while its service confirms its data
/// unchanged, and never past that service's max age, a change, or the last confirmation's TTL.
@Suite("HTTPGateway: kept answers while the data is unchanged")
struct DataVersionsTests {
    static let ttl = Duration.seconds(1)
    static let json = "application/json; charset=utf-8"

    /// A cache whose versions are recorded by hand (never asked: the service is not run).
    static func cache() -> (ResponseCache, DataVersions) {
        let versions = DataVersions(ttl: ttl, logger: testLogger()) { _ in throw CancellationError() }
        return (ResponseCache(ttl: ttl, maxBytes: 1 << 20, versions: versions), versions)
    }

    /// A cache holding an answer of `path`, `age` seconds old when kept at `start`, under the
    /// characters' version "a.1" of `maxAge`, confirmed at `start`.
    static func kept(
        _ path: String, maxAge: Double, age: Int
    ) throws -> (ResponseCache, DataVersions, ContinuousClock.Instant, DataVersions.Seen) {
        let (cache, versions) = Self.cache()
        let start = ContinuousClock.now
        versions.record(DataVersion(version: "a.1", maxAge: maxAge), of: .characters, now: start)
        let seen = try #require(cache.dataVersion(of: path, now: start))
        cache.store(
            path, body: ByteBuffer(string: "{}"), contentType: Self.json, age: age, dataVersion: seen, now: start)
        return (cache, versions, start, seen)
    }

    @Test("past the TTL: kept while confirmed unchanged, not once the version moves or no confirmation is recent")
    func keptWhileConfirmed() throws {
        let (cache, versions, start, seen) = try Self.kept("/api/character/1", maxAge: 600, age: 3)
        cache.store("/graphql-key", body: ByteBuffer(string: "{}"), contentType: Self.json, age: 3, now: start)
        // Confirmed again half a TTL before each look.
        for seconds in [1.5, 10.5, 100.5] {
            versions.record(
                DataVersion(version: "a.1", maxAge: 600), of: .characters, now: start + .seconds(seconds - 0.5))
            #expect(cache.lookup("/api/character/1", now: start + .seconds(seconds)) != nil, "at \(seconds) s")
        }
        // Without a version (GraphQL's answers): the TTL only.
        #expect(cache.lookup("/graphql-key", now: start + .milliseconds(900)) != nil)
        #expect(cache.lookup("/graphql-key", now: start + .seconds(1.5)) == nil)
        // The last confirmation more than a TTL ago (the Gateway down): not repeated.
        #expect(cache.lookup("/api/character/1", now: start + .seconds(101.6)) == nil)
        // The version moved: not repeated, even confirmed just now.
        versions.record(DataVersion(version: "a.2", maxAge: 600), of: .characters, now: start + .seconds(102))
        #expect(cache.lookup("/api/character/1", now: start + .seconds(102.1)) == nil)
        // A later answer kept at the new version is repeated again.
        let later = try #require(cache.dataVersion(of: "/api/character/1", now: start + .seconds(102.1)))
        #expect(later != seen)
        cache.store(
            "/api/character/1", body: ByteBuffer(string: "{}"), contentType: Self.json, age: 0,
            dataVersion: later, now: start + .seconds(102.1))
        versions.record(DataVersion(version: "a.2", maxAge: 600), of: .characters, now: start + .seconds(104))
        #expect(cache.lookup("/api/character/1", now: start + .seconds(104.5)) != nil)
        // Back to an earlier text (A, B, then A again) is a change too.
        versions.record(DataVersion(version: "a.1", maxAge: 600), of: .characters, now: start + .seconds(105))
        #expect(cache.lookup("/api/character/1", now: start + .seconds(105.1)) == nil)
    }

    @Test("never past the service's max age, counted from the answer's Age")
    func boundedByMaxAge() throws {
        let (cache, versions, start, seen) = try Self.kept("/api/character/", maxAge: 30, age: 10)
        // 30 s of max age, 10 already spent and one more for Age's whole seconds: 19 s.
        versions.record(DataVersion(version: "a.1", maxAge: 30), of: .characters, now: start + .seconds(18.5))
        #expect(cache.lookup("/api/character/", now: start + .seconds(18.9)) != nil)
        #expect(cache.lookup("/api/character/", now: start + .seconds(19.1)) == nil)
        // A max age of 0 (the universities' default: always ask first) or an answer older than it: the TTL.
        versions.record(DataVersion(version: "b.1", maxAge: 0), of: .universities, now: start)
        let never = try #require(versions.current(.universities, now: start))
        #expect(cache.lifetime(age: 0, never) == Self.ttl)
        #expect(cache.lifetime(age: 40, seen) == Self.ttl)
    }

    @Test("a service that is away is told once and left for the pause, the other still asked; a short TTL asks none")
    func failureToldOnce() async throws {
        let log = CapturedLog()
        let asked = Atomic<Int>(0)
        let failed = Atomic<Int>(0)
        let versions = DataVersions(ttl: DataVersions.minimumTTL, logger: log.logger()) { method in
            guard method.owner == ServiceName.characters.rawValue else {
                failed.add(1, ordering: .relaxed)
                throw RPCError(.serviceUnavailable, "away", service: method.owner)
            }
            asked.add(1, ordering: .relaxed)
            return DataVersion(version: "a.1", maxAge: 600)
        }
        let polling = Task { try await versions.run() }
        // Asked every half TTL: five calls in about half a second, far within the 5 s pause.
        try await waitUntil(10, "the answering service asked five times") { asked.load(ordering: .relaxed) >= 5 }
        #expect(versions.current(.characters) != nil && versions.current(.universities) == nil)
        polling.cancel()
        try await polling.value
        #expect(log.messages.filter { $0 == "data version unknown" }.count == 1)
        #expect(failed.load(ordering: .relaxed) == 1)

        // Under the minimum TTL: nothing asked, and no answer kept past the TTL.
        let called = Atomic<Int>(0)
        let short = DataVersions(ttl: DataVersions.minimumTTL / 2, logger: log.logger()) { _ in
            called.add(1, ordering: .relaxed)
            return DataVersion(version: "a.1", maxAge: 600)
        }
        let idle = Task { try await short.run() }
        try await Task.sleep(for: .milliseconds(300))  // what would be three calls
        idle.cancel()
        try await idle.value
        #expect(called.load(ordering: .relaxed) == 0)
    }

    @Test("which service's data each path is made of; none known, none kept past the TTL")
    func services() {
        #expect(PublicAPIRoutes.service(answering: "/api/character/1,2") == .characters)
        #expect(PublicAPIRoutes.service(answering: "/api/episode/") == .characters)
        #expect(PublicAPIRoutes.service(answering: "/Search/") == .universities)
        // GraphQL's answers are the Rick and Morty API's records, in any case, with a slash.
        #expect(PublicAPIRoutes.service(answering: "/GraphQL/") == .characters)
        #expect(PublicAPIRoutes.service(answering: "/app/characters") == nil)
        #expect(PublicAPIRoutes.service(answering: "/api") == nil)
        let (cache, _) = Self.cache()
        #expect(cache.dataVersion(of: "/api/character/1") == nil)  // never confirmed
    }
}
