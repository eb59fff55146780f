import Foundation
import Messaging
import RnmAPI
import TestSupport
import Testing

extension FaultSuite {
    /// Scenario 3: every way an upstream fails, with and without a cached copy.
    @Suite("3. upstream faults")
    struct UpstreamFaults {
        static let faults: [(name: String, fault: UpstreamFault)] = [
            ("HTTP 500", .status(500)), ("HTTP 503", .status(503)), ("HTTP 429", .status(429)),
            ("hang past the timeout", .hang), ("garbage JSON", .garbage), ("truncated body", .truncated),
            ("HTML page", .html),
        ]

        @Test(
            """
            each upstream fault: a cached answer comes back stale, an uncached one is -32002, the database is unchanged
            """,
            arguments: [RnmSystem.Role.characters, .universities])
        func faults(_ role: RnmSystem.Role) async throws {
            // The upstream timeout is what a hang meets, and also what the service's probe of the
            // upstream must finish within: at 400 ms a probe of the universities' stand-in (a
            // name search over 10,251 records in debug code) overran on a loaded machine and
            // counted as one more failure. 1.5 s: a hang still meets it, a probe does not.
            let system = try await RnmSystem.start(
                settings: ["RNM_UPSTREAM_TIMEOUT_MS": "1500", "RNM_CHARACTERS_MAX_AGE": "0"],
                roles: [role, .gateway])
            let client = try await system.connect()
            let upstream = role == .characters ? system.characterUpstream : system.universityUpstream
            // What is cached: character 1 (with its episodes), the UAE list.
            @Sendable func cached() async throws -> Freshness {
                if role == .characters {
                    return try await client.call(RPCMethods.charactersGet, IDParams(id: 1)).freshness
                }
                return try await client.call(RPCMethods.universitiesList, .init()).freshness
            }
            #expect(try await cached().stale == false)
            let uncachedCountries = ["Japan", "India", "China", "Germany", "France", "Turkiye", "Brazil"]

            var slowest = Duration.zero
            for (index, (name, fault)) in Self.faults.enumerated() {
                upstream.fault = fault
                let before = try DatabaseSnapshot.read(system.database(role))

                let started = ContinuousClock.now
                let freshness = try await cached()
                #expect(freshness.stale, "\(name): the cached copy, marked stale")
                #expect(freshness.upstreamError?.isEmpty == false, "\(name): says what went wrong")

                let uncached = await rpcError {
                    if role == .characters {
                        _ = try await client.call(RPCMethods.charactersGet, IDParams(id: 200 + index))
                    } else {
                        _ = try await client.call(RPCMethods.universitiesList, .init(country: uncachedCountries[index]))
                    }
                }
                slowest = max(slowest, ContinuousClock.now - started)
                #expect(uncached?.code == .upstreamUnavailable, "\(name): nothing cached → -32002")
                #expect(uncached?.message.isEmpty == false)

                let after = try DatabaseSnapshot.read(system.database(role))
                #expect(before == after, "\(name): the database is unchanged")
                upstream.fault = nil
                // The upstream is back: the service's probe finds out, and fresh answers follow
                // with no client action. Waiting for it also makes the next fault meet an
                // upstream that is asked (not one already known to be failing).
                // (A condition with a deadline well past the probe's longest backoff, 5 s.)
                try await waitUntil(60, "\(name): fresh answers after the upstream is back") {
                    (try? await cached().stale) == false
                }
            }
            let rows = try DatabaseSnapshot.read(system.database(role)).rowCount
            FaultReport.record(
                "3. upstream faults, \(role)",
                """
                \(Self.faults.count) faults × (cached → stale, uncached → -32002), database unchanged each time \
                (\(rows) rows); slowest pair \(ms(slowest))
                """
            )
            await client.close()
            try await system.stop()
        }
    }
}
