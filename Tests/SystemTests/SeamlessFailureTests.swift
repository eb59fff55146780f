import Foundation
import Messaging
import RnmAPI
import TestSupport
import Testing

extension FaultSuite {
    /// Scenario 11: one timeout, not one per request. The upstreams black-holed (they accept and
    /// never answer), rate-limited, unchanged, slow: reads answer at once from the cache.
    @Suite("11. seamless when the upstream fails")
    struct SeamlessFailure {
        /// The issue's settings: a 3 s upstream timeout; characters expire after 1 s and are not
        /// revalidated in the background unless a test says so.
        static let settings = [
            "RNM_UPSTREAM_TIMEOUT_MS": "3000", "RNM_CHARACTERS_MAX_AGE": "1",
            "RNM_CHARACTERS_STALE_WHILE_REVALIDATE": "0",
            "RNM_UPSTREAM_RETRY_MAX_MS": "1000",
        ]

        /// Character 1, page 1 of characters, location 1, the UAE's universities: cached, then
        /// expired.
        static func warm(_ client: RPCClient) async throws {
            _ = try await client.call(RPCMethods.charactersGet, IDParams(id: 1))
            _ = try await client.call(RPCMethods.charactersList, CharacterListParams())
            _ = try await client.call(RPCMethods.locationsGet, IDParams(id: 1))
            _ = try await client.call(RPCMethods.universitiesList, UniversityListParams())
            // The characters' max age is 1 s: past it, they are expired (time, not luck).
            try await Task.sleep(for: .milliseconds(1100))
        }

        /// One of the four reads, by turn.
        static func read(_ client: RPCClient, _ turn: Int) async throws -> Freshness {
            switch turn % 4 {
            case 0: try await client.call(RPCMethods.charactersGet, IDParams(id: 1)).freshness
            case 1: try await client.call(RPCMethods.charactersList, CharacterListParams()).freshness
            case 2: try await client.call(RPCMethods.locationsGet, IDParams(id: 1)).freshness
            default: try await client.call(RPCMethods.universitiesList, UniversityListParams()).freshness
            }
        }

        static func milliseconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        }

        @Test(
            """
            black hole: 40 reads of expired data answer stale at once but the first per upstream; -32002 at once when \
            nothing is cached; fresh again by themselves
            """
        )
        func blackHole() async throws {
            let system = try await RnmSystem.start(settings: Self.settings)
            let client = try await system.connect()
            try await Self.warm(client)
            let upstreams = [system.characterUpstream, system.universityUpstream]
            for upstream in upstreams {
                upstream.fault = .hang
                upstream.resetRequests()
            }

            // 1. 40 mixed reads: at most one per upstream waits for the timeout.
            var times: [Double] = []
            for turn in 0..<40 {
                let started = ContinuousClock.now
                let freshness = try await Self.read(client, turn)
                times.append(Self.milliseconds(ContinuousClock.now - started))
                #expect(freshness.stale, "read \(turn): from the cache, stale")
                #expect(freshness.upstreamError?.isEmpty == false, "read \(turn): says why")
            }
            let sent = upstreams.map(\.requestCount).reduce(0, +)
            let slow = times.filter { $0 >= 2500 }.count
            let sorted = times.sorted()
            let p95 = sorted[Int(Double(sorted.count) * 0.95) - 1]
            #expect(slow <= 2, "at most one read per upstream waits for the timeout: \(slow) did")
            // "At once": nowhere near the 3 s timeout (the figures, in a release build, are the
            // bench's: scripts/bench; a debug build on two shared cores is what this runs on).
            #expect(p95 < 1500, "the others at once: p95 \(p95) ms; by read: \(times.map { Int($0) })")
            #expect(sent <= 6, "requests sent into the black hole during 40 reads: \(sent)")

            // 2. Nothing cached: -32002 at once, saying since when and when it is tried again.
            let started = ContinuousClock.now
            let uncached = await rpcError { try await client.call(RPCMethods.charactersGet, IDParams(id: 300)) }
            let uncachedMs = Self.milliseconds(ContinuousClock.now - started)
            #expect(uncached?.code == .upstreamUnavailable)
            #expect(uncached?.message.contains("failing since") == true, "\(uncached?.message ?? "")")
            #expect(uncachedMs < 1500, "-32002 at once, not after the timeout: \(uncachedMs) ms")
            let health = try await client.call(RPCMethods.charactersHealth, NoParams())
            #expect(health.upstream.state == "failing" && (health.upstream.failures ?? 0) >= 1)

            // 3. The upstream comes back: fresh answers within 3 s, with no client action.
            for upstream in upstreams { upstream.fault = nil }
            let back = ContinuousClock.now
            try await waitUntil(3, "fresh answers by themselves", pollEvery: .milliseconds(50)) {
                let character = try? await Self.read(client, 0)
                let universities = try? await Self.read(client, 3)
                return character?.stale == false && universities?.stale == false
            }
            FaultReport.record(
                "11. black hole",
                "40 reads: \(slow) waited the 3 s timeout, p95 of all \(Int(p95)) ms, "
                    + "\(sent) upstream requests; uncached -32002 in \(String(format: "%.1f", uncachedMs)) ms; "
                    + "fresh again \(ms(ContinuousClock.now - back)) after the upstream came back")
            await client.close()
            try await system.stop()
        }

        @Test("an expired record the upstream has not changed: one conditional request, a 304, fresh, no body")
        func conditional() async throws {
            let system = try await RnmSystem.start(
                settings: Self.settings, roles: [.characters, .universities, .gateway])
            let client = try await system.connect()
            try await Self.warm(client)
            system.characterUpstream.resetRequests()
            let answer = try await client.call(RPCMethods.charactersGet, IDParams(id: 1))
            let requests = system.characterUpstream.requests
            #expect(requests.count == 1, "one request: \(requests.map(\.target))")
            #expect(requests.first?.ifNoneMatch?.hasPrefix("W/\"") == true, "conditional, with the stored weak ETag")
            #expect(system.characterUpstream.notModifiedCount == 1, "answered 304, no body")
            #expect(!answer.freshness.stale && answer.freshness.source == .upstream)
            #expect(answer.character.name == "Rick Sanchez")
            // The universities' list (max age 0: asked every time) is revalidated the same way.
            system.universityUpstream.resetRequests()
            let universities = try await client.call(RPCMethods.universitiesList, UniversityListParams())
            #expect(system.universityUpstream.notModifiedCount == 1 && !universities.freshness.stale)
            #expect(universities.items.count > 0)
            FaultReport.record(
                "11. conditional",
                "expired character 1: 1 request with If-None-Match, 304, answer fresh; UAE list alike")
            await client.close()
            try await system.stop()
        }

        @Test(
            """
            429 with Retry-After: 4: reads every 20 ms make no request for the 4 s it asked for, each answered stale \
            saying why; fresh again after it
            """
        )
        func retryAfter() async throws {
            let system = try await RnmSystem.start(settings: Self.settings, roles: [.characters, .gateway])
            let client = try await system.connect()
            _ = try await client.call(RPCMethods.charactersGet, IDParams(id: 1))
            try await Task.sleep(for: .milliseconds(1100))
            let upstream = system.characterUpstream
            upstream.resetRequests()
            upstream.fault = .throttle(seconds: 4)
            #expect(try await client.call(RPCMethods.charactersGet, IDParams(id: 1)).freshness.stale)
            let throttled = try #require(upstream.requests.last?.receivedAt, "the 429 was asked for")
            // From now on the upstream would answer: only the Retry-After holds rnm back. Reads
            // until one is fresh again, each stale with the reason before it (read at least once:
            // the loop's test comes after its read).
            upstream.fault = nil
            var starts: [ContinuousClock.Instant] = []
            var fresh = false
            repeat {
                starts.append(.now)
                let freshness = try await client.call(RPCMethods.charactersGet, IDParams(id: 1)).freshness
                fresh = !freshness.stale
                if !fresh {
                    #expect(freshness.upstreamError?.contains("Retry-After") == true, "\(freshness)")
                }
                if starts.count == 10 {
                    let health = try await client.call(RPCMethods.charactersHealth, NoParams())
                    #expect(health.upstream.state == "rate-limited" && health.upstream.rateLimitedUntil != nil)
                }
                try await Task.sleep(for: .milliseconds(20))
            } while !fresh && ContinuousClock.now - throttled < .seconds(10)
            #expect(fresh, "fresh again within 10 s of the 429")
            // The next request the upstream saw, by its own clock: not before the 4 s.
            let next = upstream.requests.first { $0.receivedAt > throttled }?.receivedAt
            let quiet = (next ?? .now) - throttled
            #expect(quiet >= .seconds(4), "the first request after the 429 came \(ms(quiet)) after it")
            // Reads all through those 4 s: none more than 2 s after the last (wide: two busy cores).
            let gaps = zip(starts.dropFirst(), starts).map { $0 - $1 }
            let widest = gaps.max() ?? .zero
            #expect(starts.count >= 10 && widest < .seconds(2), "\(starts.count) reads, \(ms(widest)) apart at most")
            FaultReport.record(
                "11. Retry-After: 4",
                """
                \(starts.count) reads (at most \(ms(widest)) apart); the next upstream request \(ms(quiet)) after the \
                429; fresh again then
                """
            )
            await client.close()
            try await system.stop()
        }

        @Test(
            """
            stale-while-revalidate: an expired record inside the window answers at once, one background request for \
            10 readers, fresh after
            """
        )
        func staleWhileRevalidate() async throws {
            var settings = Self.settings
            settings["RNM_CHARACTERS_STALE_WHILE_REVALIDATE"] = "600"
            // A copy is as old as its request: the refresh's, 1.5 s in coming, must arrive fresh.
            settings["RNM_CHARACTERS_MAX_AGE"] = "3"
            let system = try await RnmSystem.start(settings: settings, roles: [.characters, .gateway])
            let client = try await system.connect()
            let first = try await client.call(RPCMethods.charactersGet, IDParams(id: 1)).freshness
            try await Task.sleep(for: .milliseconds(3100))
            let upstream = system.characterUpstream
            upstream.resetRequests()
            upstream.latency = .milliseconds(1500)  // the refresh takes a while: nobody waits for it
            let started = ContinuousClock.now
            let once = try await client.call(RPCMethods.charactersGet, IDParams(id: 1)).freshness
            let onceMs = Self.milliseconds(ContinuousClock.now - started)
            #expect(once.revalidating == true && !once.stale && once.fetchedAt == first.fetchedAt)
            #expect(onceMs < 1000, "answered at once, not after the upstream's 1.5 s: \(onceMs) ms")
            // Ten more while the refresh is under way: the same, and no second request.
            let times = try await withThrowingTaskGroup(of: (Double, Freshness).self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        let started = ContinuousClock.now
                        let freshness = try await client.call(RPCMethods.charactersGet, IDParams(id: 1)).freshness
                        return (Self.milliseconds(ContinuousClock.now - started), freshness)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for (_, freshness) in times {
                #expect(freshness.revalidating == true && !freshness.stale && freshness.fetchedAt == first.fetchedAt)
            }
            #expect(times.allSatisfy { $0.0 < 1500 }, "none waited for the upstream")
            try await waitUntil(5, "the background refresh") { upstream.requestCount >= 1 }
            try await waitUntil(5, "fresh after the refresh", pollEvery: .milliseconds(50)) {
                let freshness = try? await client.call(RPCMethods.charactersGet, IDParams(id: 1)).freshness
                return freshness?.revalidating == nil && freshness?.stale == false
                    && freshness?.fetchedAt != first.fetchedAt
            }
            #expect(upstream.requestCount == 1, "one background request for 10 readers: \(upstream.requestCount)")
            let slowest = times.map(\.0).max() ?? 0
            FaultReport.record(
                "11. stale-while-revalidate",
                "an expired read in \(String(format: "%.1f", onceMs)) ms, 10 more at once "
                    + "(slowest \(Int(slowest)) ms), \(upstream.requestCount) upstream request, fresh on the next read")
            await client.close()
            try await system.stop()
        }
    }
}
