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
            """
            kill -9 during characters.sync, 20 times at random moments (after 1 to 24 of its 31 or more upstream \
            requests; a kill that misses the sync is not counted): integrity_check is ok every time and no cached row \
            disappears
            """
        )
        func killDuringSync() async throws {
            var random = SeededRandom.fromEnvironment()
            let system = try await RnmSystem.start(roles: [.characters])
            // A sync asks for 31 pages at least (3 first pages, then 28, 4 at a time, 40 ms
            // each; the first also the avatars): killed after its 24th request at the latest,
            // it still has 7 requests (two rounds, 80 ms and more) to make.
            system.characterUpstream.latency = .milliseconds(40)
            let database = system.database(.characters)
            var midSync = 0
            var missed = 0
            var moments: [Int] = []
            var checks: [String] = []
            var round = 0
            while midSync < Self.kills, round < Self.kills + 10 {
                round += 1
                let before = try DatabaseSnapshot.read(database, ignoring: ["fetchedAt", "usedAt"])
                let upstream = system.characterUpstream
                upstream.resetRequests()
                let client = try await system.connect(.characters)
                let sync = Task { try await client.call(RPCMethods.charactersSync, NoParams(), timeout: .seconds(60)) }
                let moment = Int.random(in: 1...24, using: &random)
                try await waitUntil(20, "the sync's upstream request \(moment)", pollEvery: .milliseconds(2)) {
                    upstream.requestCount >= moment
                }
                system.kill(.characters)
                _ = try await system.process(.characters)!.waitForExit()
                // Mid-sync: its reply never came. One that came means the kill missed the sync.
                if case .failure = await sync.result {
                    midSync += 1
                    moments.append(moment)
                } else {
                    missed += 1
                }
                await client.close()

                let integrity = try DatabaseSnapshot.integrityCheck(database)
                #expect(integrity == "ok", "round \(round): \(integrity)")
                checks.append(integrity)
                let after = try DatabaseSnapshot.read(database, ignoring: ["fetchedAt", "usedAt"])
                let lost = before.rowsMissing(from: after)
                #expect(lost.count == 0, "round \(round): rows lost: \(lost.prefix(3))")
                if midSync < Self.kills { try await system.restart(.characters) }
            }
            #expect(midSync == Self.kills, "\(midSync) kills landed mid-sync in \(round) rounds (\(missed) missed it)")
            let rows = try DatabaseSnapshot.read(database).rowCount
            FaultReport.record(
                "4. kill -9 during sync",
                """
                \(midSync) kills mid-sync (after upstream requests \(moments.sorted()); \(missed) missed the sync, \
                not counted; seed \(random.seed)); integrity_check ok \(checks.filter { $0 == "ok" }.count)/\(round); \
                no row lost; \(rows) rows at the end
                """
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
