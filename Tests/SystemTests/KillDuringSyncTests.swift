import Foundation
import Messaging
import RnmAPI
import TestSupport
import Telemetry
import Testing

extension FaultSuite {
    /// Scenario 4: the CharacterService killed in the middle of writing a full sync.
    @Suite("4. kill -9 during characters.sync")
    struct KillDuringSync {
        static let kills = 20

        @Test(
            "kill -9 during characters.sync, 20 times at random moments: integrity_check is ok every time and no cached row disappears"
        )
        func killDuringSync() async throws {
            var random = SeededRandom.fromEnvironment()
            let system = try await RnmSystem.start(roles: [.characters])
            // 52 upstream pages, 4 at a time, 40 ms each: a sync takes well over half a second.
            system.characterUpstream.latency = .milliseconds(40)
            let database = system.database(.characters)
            var midSync = 0
            var checks: [String] = []
            for round in 1...Self.kills {
                let before = try DatabaseSnapshot.read(database, ignoring: ["fetchedAt", "usedAt"])
                let client = try await system.connect(.characters)
                let sync = Task { try await client.call(RPCMethods.charactersSync, NoParams(), timeout: .seconds(60)) }
                let upstream = system.characterUpstream
                upstream.resetRequests()
                try await waitUntil(10, "sync reaches the upstream") { upstream.requestCount > 0 }
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...450, using: &random)))
                system.kill(.characters)
                _ = try await system.process(.characters)!.waitForExit()
                if case .failure = await sync.result { midSync += 1 }
                await client.close()

                let integrity = try DatabaseSnapshot.integrityCheck(database)
                #expect(integrity == "ok", "round \(round): \(integrity)")
                checks.append(integrity)
                let after = try DatabaseSnapshot.read(database, ignoring: ["fetchedAt", "usedAt"])
                let lost = before.rowsMissing(from: after)
                #expect(lost.count == 0, "round \(round): rows lost: \(lost.prefix(3))")
                if round < Self.kills { try await system.restart(.characters) }
            }
            let rows = try DatabaseSnapshot.read(database).rowCount
            FaultReport.record(
                "4. kill -9 during sync",
                "\(Self.kills) kills (\(midSync) mid-sync, seed \(random.seed)); integrity_check ok \(checks.filter { $0 == "ok" }.count)/\(Self.kills); no row lost; \(rows) rows at the end"
            )
            try await system.stop()
        }
    }
}

/// A seeded generator (Telemetry's SplitMix64) so a failing run can be repeated: `RNM_FAULT_SEED`.
struct SeededRandom: RandomNumberGenerator {
    let seed: UInt64
    private var generator: SplitMix64

    init(seed: UInt64) {
        self.seed = seed
        generator = SplitMix64(seed: seed)
    }

    static func fromEnvironment() -> SeededRandom {
        SeededRandom(
            seed: ProcessInfo.processInfo.environment["RNM_FAULT_SEED"].flatMap(UInt64.init)
                ?? UInt64.random(in: 1...UInt64(UInt32.max)))
    }

    mutating func next() -> UInt64 { generator.next() }
}
