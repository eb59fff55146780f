import Foundation
import RnmAPI
@testable import HTTPGateway
import Synchronization
import TestSupport
import Testing

/// Issue 29, row 1: the HTTP front's link to the Gateway carries every HTTP client's
/// requests. The Gateway holds back a link whose replies pile up (it stops reading it) rather
/// than dropping replies on it, so heavy readers slow down and nobody gets a 503.
/// In the connection-limit suite, which runs its tests one at a time: the heavy readers load
/// both cores, and the others measure how fast the front refuses.
extension HTTPConnectionLimitTests {
    @Test("4 clients reading 410 KB answers for 4 s: neither they nor a bystander get a 503")
    func heavyReadersDoNotHurtABystander() async throws {
        // A small Gateway buffer (the default is 4 MiB), so that the link fills with a few
        // readers on any machine: this runs beside the rest of the suite on two cores.
        try await RnmSystem.with(
            settings: ["RNM_UNIVERSITIES_MAX_AGE": "600", "RNM_CONNECTION_BUFFER_BYTES": "262144"]
        ) { system in
            // The micro-cache off: every read crosses the link.
            let http = try await RunningHTTPGateway.start(gatewaySocket: system.gatewaySocket, publicURL: "") {
                $0.cacheTTL = .zero
            }
            #expect(try await http.get("/search?country=Japan").status == 200)
            #expect(try await http.get("/search?country=United%20States").status == 200)
            let end = ContinuousClock.now + .seconds(4)
            let heavy = Task {
                try await withThrowingTaskGroup(of: [Int].self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            var statuses: [Int] = []
                            // Bounded by the clock and by a count.
                            for _ in 0..<10_000 where ContinuousClock.now < end {
                                statuses.append(try await http.get("/search?country=United%20States").status)
                            }
                            return statuses
                        }
                    }
                    return try await group.reduce(into: []) { $0 += $1 }
                }
            }
            var bystander: [Int] = []
            for _ in 0..<25 {
                bystander.append(try await http.get("/search?country=Japan").status)
                try await Task.sleep(for: .milliseconds(150))
            }
            let statuses = try await heavy.value
            let heavyRefused = statuses.filter { $0 != 200 }.count
            #expect(bystander.allSatisfy { $0 == 200 }, "the bystander's statuses: \(bystander)")
            #expect(heavyRefused == 0, "\(heavyRefused) of the heavy readers' \(statuses.count) not answered")
            #expect(statuses.count >= 4, "the heavy readers were answered: \(statuses.count) answers")
            try await http.server.stop()
        }
    }

    @Test(
        """
        400 reads at once, past the Gateway's 256 in flight on one connection: the link filled (the Gateway counted \
        the front's share in flight at once: one under, less the data versions' calls; never past 256), all \
        answered, none 503
        """
    )
    func burstPastTheLinkLimit() async throws {
        try await RnmSystem.with(settings: ["RNM_UPSTREAM_TIMEOUT_MS": "60000"]) { system in
            // The upstream holds every read until the link has filled: however slowly a busy
            // machine opens the 400 connections, none is answered before (a 200 ms latency was
            // not always enough: 254).
            system.characterUpstream.fault = .hang
            let http = try await RunningHTTPGateway.start(gatewaySocket: system.gatewaySocket, publicURL: "") {
                $0.maxConnectionsPerClient = 1000
            }
            // The Gateway's own count of what it has in flight, read beside the burst.
            let observer = try await system.connect()
            let peak = Mutex(0)
            let done = Atomic(false)
            let watching = Task {
                while !done.load(ordering: .relaxed) {
                    let health = try? await observer.call(RPCMethods.gatewayHealth, NoParams(), timeout: .seconds(5))
                    peak.withLock { $0 = max($0, health?.inFlight ?? 0) }
                    try? await Task.sleep(for: .milliseconds(5))
                }
            }
            let burst = Task {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for id in 1...400 {
                        group.addTask {
                            try await HTTPProbe.request(
                                port: http.port, target: "/api/character/\(id)", timeout: .seconds(60)
                            )
                            .status
                        }
                    }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
            }
            // One under the Gateway's 256, less a call for each service's data version (DataVersions).
            let share = 256 - 1 - DataVersions.services.count
            try await waitUntil(30, "the link filled") { peak.withLock { $0 } >= share }
            system.characterUpstream.fault = nil
            let statuses = try await burst.value
            done.store(true, ordering: .relaxed)
            await watching.value
            await observer.close()
            let counts = Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count)
            #expect(counts == [200: 400], "statuses: \(counts)")
            let most = peak.withLock { $0 }
            // The front's share, with the versions' calls and a reply the front already has that the
            // Gateway may still count.
            #expect((share...256).contains(most), "in flight at the Gateway at once, at most: \(most)")
            try await http.server.stop()
        }
    }
}
