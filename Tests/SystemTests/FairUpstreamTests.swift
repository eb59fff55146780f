import Foundation
import Messaging
import NIOCore
import RnmAPI
import TestSupport
import Testing

extension FaultSuite {
    /// Issue 35, finding 8: fetches waiting for an upstream connection are served in turn
    /// between the clients that asked, so a client's first cold read is not queued behind
    /// another client's hundred.
    @Suite("15. a fair queue for the upstream")
    struct FairUpstream {
        /// `characters.getMany`, as the HTTP front's `/api/character/<id>` asks: one fetch a read.
        /// (A `characters.get` also loads its episodes, in fetches shared with other reads,
        /// which wait in the turn of the read that started them.)
        @Test("one client's 20 cold reads on a slow upstream with 2 connections: another's cold read goes next")
        func fairQueue() async throws {
            try await RnmSystem.with(settings: ["RNM_UPSTREAM_MAX_CONNECTIONS": "2"]) { system in
                let latency = TimeAmount.milliseconds(400)
                system.characterUpstream.latency = latency
                system.characterUpstream.resetRequests()
                let busy = try await system.connect()
                let started = ContinuousClock.now
                let burst = (100..<120).map { id in
                    Task {
                        _ = try await busy.call(
                            RPCMethods.charactersGetMany, IDsParams(ids: [id]), timeout: .seconds(60))
                        return ContinuousClock.now - started
                    }
                }
                try await waitUntil(10, "the burst holds both connections") {
                    system.characterUpstream.requestCount >= 2
                }
                let other = try await system.connect()
                let asked = ContinuousClock.now
                _ = try await other.call(RPCMethods.charactersGetMany, IDsParams(ids: [300]), timeout: .seconds(60))
                let waited = ContinuousClock.now - asked
                var burstTook = Duration.zero
                for task in burst { burstTook = max(burstTook, try await task.value) }
                await busy.close()
                await other.close()
                // Judged against the burst in this run: first come, first served, the other
                // client's read waited for the 18 before it (9 turns of both connections).
                #expect(burstTook > .milliseconds(400 * 8), "the burst queued: \(ms(burstTook))")
                #expect(
                    waited < burstTook / 3, "the other client waited \(ms(waited)) beside a burst of \(ms(burstTook))")
                FaultReport.record(
                    "15. fair upstream queue",
                    """
                    20 cold reads of one client on 2 connections of a 400 ms upstream took \(ms(burstTook)); another \
                    client's cold read meanwhile \(ms(waited))
                    """
                )
            }
        }
    }
}
