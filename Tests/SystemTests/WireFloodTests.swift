import Foundation
import Messaging
import RnmAPI
import Synchronization
import TestSupport
import Testing

extension FaultSuite {
    /// Issue 35, finding 7: a newcomer is served at once however many connections flood the
    /// Gateway with requests whose replies they never read.
    @Suite("14. the Gateway under a wire flood")
    struct WireFlood {
        @Test(
            """
            200 connections pipelining 500 universities.list each, never reading: a newcomer's get waits a few turns, \
            not for the flood
            """
        )
        func flood() async throws {
            try await RnmSystem.with(settings: ["RNM_UNIVERSITIES_MAX_AGE": "600", "RNM_CHARACTERS_MAX_AGE": "600"]) {
                system in
                try await system.warmCharacter(1)
                let client = try await system.connect()
                let chile = try await client.call(RPCMethods.universitiesList, .init(country: "Chile"))
                #expect(chile.count > 0)
                await client.close()
                var alone = Duration.zero
                for _ in 0..<5 { alone = max(alone, try await system.timedCachedGet(timeout: .seconds(60))) }
                let before = system.residentBytes(.gateway) ?? 0
                let request = frameBytes(
                    Array(#"{"jsonrpc":"2.0","id":1,"method":"universities.list","params":{"country":"Chile"}}"#.utf8))
                let sockets = try (0..<200).map { _ in try BlockingSocket(path: system.gatewaySocket) }
                let started = ContinuousClock.now
                // Eight senders, 25 connections each, all at once; each send ends once the
                // Gateway has read all 500 (or read nothing for 10 s). (Sized so that the
                // debug Gateway is busy for about 10 s, not 35: the suite runs other tests beside it.)
                let finished = Finished()
                let senders = (0..<8).map { part in
                    Task {
                        let sent = await onOwnThread {
                            sockets[(part * 25)..<(part * 25 + 25)].reduce(0) {
                                $0 + $1.send(request, times: 500, stallSeconds: 10)
                            }
                        }
                        finished.count.withLock { $0 += 1 }
                        return sent
                    }
                }
                let done = Task {
                    var sent = 0
                    for sender in senders { sent += await sender.value }
                    return sent
                }
                // Newcomers, one after another, while the Gateway works through the flood: until the
                // senders are done and the Gateway has nothing left in flight (within 3 minutes).
                // (Not until its count of answers stopped growing for three polls: in CI that pause came
                // with thousands of requests still on their way to the service, and the SIGTERM at the
                // end found them: the Gateway took over 10 s to stop.)
                var slowest = Duration.zero
                var asked = 0
                var highest = before
                var state = (answered: 0, inFlight: 0)
                repeat {
                    slowest = max(slowest, try await system.timedCachedGet(timeout: .seconds(60)))
                    highest = max(highest, system.residentBytes(.gateway) ?? 0)
                    asked += 1
                    state = try await Self.progress(RPCMethods.universitiesList.name, system)
                } while ContinuousClock.now - started < .seconds(180)
                    && (finished.count.withLock({ $0 }) < 8 || state.inFlight > 0)
                let answered = state.answered
                let sent = await done.value
                let flood = ContinuousClock.now - started
                let after = try await system.timedCachedGet()
                for socket in sockets { socket.close() }
                // The Gateway lets the flood's connections go once they close (it still reads what
                // they left in its socket buffers, and refuses it). Waited for before the system is
                // stopped: a SIGTERM in the middle of that is the SIGTERM suite's work, not this one's,
                // and took the Gateway past its 7 s grace (BENCHMARKS.md, session 24).
                let closing = ContinuousClock.now
                try await waitUntil(60, "the Gateway lets the flood's connections go", pollEvery: .milliseconds(100)) {
                    // Less the connection that asks.
                    ((try? await Self.connections(system)) ?? .max) <= 1
                }
                let gone = ContinuousClock.now - closing
                let peak = highest
                // Judged against the flood itself, in this run: before the fair turns a newcomer
                // waited for the whole of it (31 s of 33 s in a debug build, 400 × 1,000).
                // That the flood was worked through, not how far: the Gateway stops reading a
                // connection once its unread replies fill its share, so the count is set by
                // buffers (97% before session 15's small read turns, 53-57% since in CI, 48-49%
                // on a machine loaded by builds: a half was within that noise).
                #expect(answered > sent / 4, "the Gateway answered \(answered) of the \(sent) requests written")
                #expect(slowest < flood / 3, "slowest newcomer \(ms(slowest)) during a flood of \(ms(flood))")
                // Replies waiting unread are the Gateway's by design, up to RNM_MAX_UNREAD_BYTES.
                #expect(
                    peak - before <= WireLimits.maxUnreadBytes + 64 << 20,
                    "Gateway RSS \(megabytes(before)) → \(megabytes(peak))")
                FaultReport.record(
                    "14. wire flood",
                    """
                    200 × 500 universities.list never read (\(sent) sent, \(answered) answered in \(ms(flood))): a \
                    newcomer's cached get \(ms(alone)) alone, slowest of \(asked) during \(ms(slowest)), after \
                    \(ms(after)); the flood's connections gone \(ms(gone)) after they closed; Gateway RSS \
                    \(megabytes(before)) → \(megabytes(peak))
                    """
                )
            }
        }

        /// Requests of `method` the Gateway has answered, whatever their outcome, and the requests it
        /// has in flight.
        static func progress(_ method: String, _ system: RnmSystem) async throws -> (answered: Int, inFlight: Int) {
            let exposition = try await metrics(system)
            let answered = exposition.total("rnm_rpc_requests_total", ["method": method])
            // Less this call, in flight while it is answered.
            return (Int(answered), Int(exposition.total("rnm_rpc_requests_in_flight", [:])) - 1)
        }

        /// Client connections the Gateway has open, the one asking included.
        static func connections(_ system: RnmSystem) async throws -> Int {
            Int(try await metrics(system).total("rnm_rpc_connections"))
        }

        /// The Gateway's metrics, asked on a connection of their own.
        static func metrics(_ system: RnmSystem) async throws -> Exposition {
            let client = try await system.connect()
            defer { Task { await client.close() } }
            let report = try await client.call(RPCMethods.gatewayMetrics, NoParams(), timeout: .seconds(60))
            return try Exposition(report.exposition)
        }
    }
}

/// Senders that have finished.
private final class Finished: Sendable {
    let count = Mutex(0)
}
