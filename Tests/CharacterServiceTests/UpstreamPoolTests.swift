import Foundation
import Messaging
import RnmAPI
import TestSupport
import Testing

/// Issue 29, row 7: a burst of cold reads never makes another read time out on a healthy
/// upstream; the wait for a connection is rnm's, bounded on its own.
@Suite("CharacterService's connections to its upstream", .cleansUp)
struct UpstreamPoolTests {
    @Test("64 cold reads at once on a 1 s upstream all answer, and so does another client's list")
    func burst() async throws {
        let harness = try await CharacterHarness.start()
        harness.upstream.latency = .seconds(1)
        let burst = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for id in 2...65 {
                    group.addTask { try await harness.call(RPCMethods.charactersGet, .init(id: id)).character.id }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        try await waitUntil(30, "the burst under way") { harness.upstream.requestCount >= 10 }
        let list = try await harness.call(RPCMethods.locationsList, .init(page: 2))
        #expect(list.items.count == 20 && list.freshness.source == .upstream)
        #expect(try await burst.value.sorted() == Array(2...65))
        try await harness.stop()
    }

    @Test("past the wait for a connection: busy, named, and not counted against the upstream's health")
    func busy() async throws {
        // A connection is waited for 12 s (the upstream timeout), a request takes 8 s.
        let harness = try await CharacterHarness.start(upstreamMaxConnections: 2, upstreamTimeoutMilliseconds: 12_000)
        harness.upstream.latency = .seconds(8)
        let errors = try await withThrowingTaskGroup(of: RPCError?.self) { group in
            // Five pages, one upstream request each, two at once: the third and fourth wait 8 s
            // (answered after 16 s), the fifth would wait 16 s and gives up at 12. It holds while
            // the five reach the pool within 4 s of the first (they are started together; a busy
            // machine stalls for a second or two).
            for page in 2...6 {
                group.addTask {
                    await harness.error {
                        try await harness.client.call(
                            RPCMethods.charactersList, .init(page: page), timeout: .seconds(60))
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let busy = errors.compactMap { $0 }
        #expect(busy.count == 1, "\(busy)")
        #expect(busy.first?.message.contains("all 2 connections to the upstream stayed busy") == true)
        let health = try await harness.call(RPCMethods.charactersHealth, NoParams())
        #expect(health.upstream.state == "ok" && health.status == "ok")
        try await harness.stop()
    }

    @Test("requests given up on at their deadline stop (rpc.cancel): no upstream fetch for them, nothing queued")
    func givenUpRequestsStop() async throws {
        let harness = try await CharacterHarness.start(upstreamMaxConnections: 2)
        harness.upstream.latency = .seconds(2)
        // 20 cold reads, each given up on by its client after 300 ms: two hold the connections.
        await withTaskGroup(of: Void.self) { group in
            for id in 2...21 {
                group.addTask {
                    _ = try? await harness.client.call(
                        RPCMethods.charactersGet, .init(id: id), timeout: .milliseconds(300))
                }
            }
        }
        // Two held the connections; a waiter may take one freed by a cancel before its own cancel
        // arrives (the 20 cancels come one by one), but not many.
        let asked = harness.upstream.requestCount
        // Another cold read (2 upstream requests, 2 s each) finds both connections free at once;
        // were the 18 given up on still queued, it would wait past the 5 s a connection is waited for.
        let rick = try await harness.call(RPCMethods.charactersGet, .init(id: 1))
        #expect(rick.character.name == "Rick Sanchez" && !rick.episodes.isEmpty)
        #expect(
            harness.upstream.requestCount <= 8, "\(harness.upstream.requestCount) upstream requests, \(asked) at first")
        let health = try await harness.call(RPCMethods.charactersHealth, NoParams())
        #expect(
            health.upstream.state == "ok" && health.upstream.lastError == nil,
            "abandoned fetches are not upstream failures")
        try await harness.stop()
    }
}
