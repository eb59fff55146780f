import Foundation
import Messaging
import TestSupport
import Testing

extension FaultSuite {
    /// Scenario 7: memory stays flat under sustained load.
    @Suite("7. memory")
    struct Memory {
        @Test("RSS of each process after 100k requests is within 10% of its RSS after the first 10k")
        func flatMemory() async throws {
            let system = try await RnmSystem.start(settings: KillUnderLoad.servedFromCache)
            try await system.warm()
            let started = ContinuousClock.now
            let load = LoadGenerator(
                socketPath: system.gatewaySocket,
                workloads: [.cachedCharacters(connections: 16), .cachedUniversities(connections: 16)])
            try await load.waitForMore(10_000, seconds: 120)
            let early = RnmSystem.Role.allCases.map { system.residentBytes($0) ?? 0 }
            try await load.waitForMore(90_000, seconds: 600)
            let late = RnmSystem.Role.allCases.map { system.residentBytes($0) ?? 0 }
            let outcomes = await load.stop()
            let elapsed = ContinuousClock.now - started

            let failed = outcomes.filter { !$0.isOK }.count
            #expect(failed == 0)
            var figures: [String] = []
            for (index, role) in RnmSystem.Role.allCases.enumerated() {
                let growth = Double(late[index] - early[index]) / Double(early[index])
                #expect(
                    early[index] > 0 && growth <= 0.10,
                    "\(role): \(megabytes(early[index])) after 10k, \(megabytes(late[index])) after 100k")
                figures.append(
                    """
                    \(role) \(megabytes(early[index])) → \(megabytes(late[index])) \
                    (\(String(format: "%+.1f", growth * 100))%)
                    """
                )
            }
            let rate =
                Double(outcomes.count)
                / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            FaultReport.record(
                "7. memory",
                """
                \(outcomes.count) requests, \(failed) failed, \(Int(rate))/s (debug build); RSS after 10k → 100k: \
                \(figures.joined(separator: ", "))
                """
            )
            try await system.stop()
        }
    }
}
