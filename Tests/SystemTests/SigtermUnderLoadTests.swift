import Foundation
import Messaging
import NIOCore
import TestSupport
import Testing

extension FaultSuite {
    /// Scenario 2: SIGTERM while clients keep the system busy and slow requests are in flight.
    @Suite("2. SIGTERM under load")
    struct SigtermUnderLoad {
        @Test(
            """
            SIGTERM: requests in flight complete, new ones are answered or refused cleanly, the socket file goes, \
            exit 0 within 5 s
            """,
            arguments: RnmSystem.Role.allCases)
        func sigterm(_ role: RnmSystem.Role) async throws {
            let system = try await RnmSystem.start(
                settings: KillUnderLoad.servedFromCache.merging(["RNM_UPSTREAM_TIMEOUT_MS": "5000"]) { $1 })
            try await system.warm()
            let slowCharacters = role != .universities
            let upstream = slowCharacters ? system.characterUpstream : system.universityUpstream
            // Slow requests that are certainly in flight: each upstream call waits 400 ms.
            let slowRequests: [(method: String, params: String, upstreamKey: String)] =
                slowCharacters
                ? (101...106).map { ("characters.get", #"{"id":\#($0)}"#, "/api/character/\($0)") }
                : ["Japan", "India", "China", "Germany", "France", "Turkiye"].map {
                    ("universities.list", #"{"country":"\#($0)"}"#, $0)
                }
            upstream.latency = .milliseconds(400)
            let load = LoadGenerator(
                socketPath: system.gatewaySocket,
                workloads: [.cachedCharacters(connections: 2), .cachedUniversities(connections: 2)])
            let client = try await system.connect()
            let inFlight = slowRequests.map { request in
                Task {
                    try await client.call(
                        method: request.method, params: ByteBuffer(string: request.params), timeout: .seconds(10))
                }
            }
            try await waitUntil(10, "the slow requests reach the upstream") {
                let seen = Set(upstream.requests.map { $0.query["country"] ?? $0.path })
                return slowRequests.allSatisfy { seen.contains($0.upstreamKey) }
            }

            let signalledAt = ContinuousClock.now
            system.kill(role, SIGTERM)
            var completed = 0
            for task in inFlight {
                let reply = try await task.value
                #expect(
                    reply.result != nil,
                    "a request in flight at SIGTERM completes: \(String(describing: reply.rpcError))")
                if reply.result != nil { completed += 1 }
            }
            let status = try await system.process(role)!.waitForExit(seconds: 5)
            let exitedAfter = ContinuousClock.now - signalledAt
            #expect(status == 0)
            #expect(!FileManager.default.fileExists(atPath: system.socket(role)), "socket file removed")
            try await load.waitForMore(50)
            let outcomes = await load.stop()
            await client.close()

            let after = outcomes.filter { $0.started >= signalledAt }
            let unclean = after.filter { !$0.isOK && $0.code != RPCError.Code.serviceUnavailable.rawValue }
            #expect(
                unclean.count == 0,
                "new requests are answered or refused with -32003: \(unclean.prefix(3).map(\.result))")
            if role != .gateway {
                let survivor = role == .characters ? "universities" : "characters"
                let failed = outcomes.filter { $0.workload == survivor && !$0.isOK }
                #expect(failed.count == 0, "\(survivor) is not affected: \(failed.prefix(3).map(\.result))")
            }
            let refused = after.filter { !$0.isOK }.count
            FaultReport.record(
                "2. SIGTERM \(role)",
                """
                \(completed)/\(slowRequests.count) in flight completed; after the signal \(after.count - refused) \
                answered, \(refused) refused with -32003; exit \(status) after \(ms(exitedAfter)); socket removed
                """
            )
            upstream.latency = .zero
            try await system.stop()
        }
    }
}
