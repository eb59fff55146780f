import Foundation
#if canImport(Glibc)
    import Glibc
#endif
@testable import HTTPGateway
import TestSupport
import Testing

/// Issue 40: the idle timeout of connections whose hits are answered from the request's bytes
/// (``MicroCacheHitHandler``), kept with Hummingbird's rules. A timing suite: it judges a 500 ms
/// timeout against a client that waits 100 ms between hits, and beside seven other suites'
/// processes on two cores the client's thread was once held past the timeout (CI, session 20:
/// 8 of 15 hits answered), so it runs alone (`scripts/test`'s second run).
@Suite("HTTPGateway: the idle timeout of hits answered from the bytes", .serialized, .cleansUp, .tags(.timing))
struct MicroCacheIdleTimeoutTests {
    @Test(
        """
        the idle timeout (500 ms): hits every 100 ms keep a connection for 1.5 s; silence closes it; so does a head \
        trickled a byte at a time
        """
    )
    func idleTimeout() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: "http://rnm.test"
            ) {
                $0.cacheTTL = .seconds(60); $0.idleTimeout = .milliseconds(500)
            }
            for _ in 0..<2 { _ = try await http.get("/api/character/3") }
            let port = http.port
            let outcome = await onOwnThread { () -> (answered: Int, closedAfter: Duration?, trickled: Int?) in
                guard let client = WireClient(port: port) else { return (0, nil, nil) }
                var answered = 0
                for index in 0..<15 {
                    if index > 0 { usleep(100_000) }
                    let answer = client.exchange("GET /api/character/3 HTTP/1.1\r\nHost: a\r\n\r\n", answers: 1)
                    guard answer.first?.status == 200 else { break }
                    answered += 1
                }
                let closedAfter = client.closedWithin(.seconds(10))
                // A head a byte every 150 ms: never whole within the timeout, so never active.
                guard let slow = WireClient(port: port) else { return (answered, closedAfter, nil) }
                var sent = 0
                for byte in Array(
                    "GET /api/character/3 HTTP/1.1\r\nHost: a\r\nX-Slow: 01234567890123456789\r\n\r\n".utf8)
                {
                    guard slow.send([byte]) else { break }
                    sent += 1
                    usleep(150_000)
                }
                return (answered, closedAfter, sent)
            }
            #expect(outcome.answered == 15, "every hit answered on the one connection")
            let closedAfter = try #require(outcome.closedAfter, "closed once silent")
            #expect(closedAfter >= .milliseconds(250) && closedAfter < .seconds(5), "\(closedAfter)")
            let trickled = try #require(outcome.trickled)
            #expect(trickled < 20, "the trickled head's connection closed after \(trickled) bytes")
            try await http.server.stop()
        }
    }

    @Test(
        """
        a body trickled a byte every 200 ms keeps the idle timeout (60 s) away, and is cut at the body timeout (1 s): \
        a GraphQL POST held for its body is answered 408, a body Hummingbird's side drains is closed
        """
    )
    func bodyTimeout() async throws {
        try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
            let http = try await RunningHTTPGateway.start(
                gatewaySocket: system.gatewaySocket, publicURL: "http://rnm.test"
            ) {
                $0.cacheTTL = .seconds(60); $0.idleTimeout = .seconds(60); $0.bodyTimeout = .seconds(1)
            }
            let port = http.port
            /// Sends `head`, then a byte of its 200-byte body every 200 ms until the front closes the
            /// connection, for 15 s at most: how long that took (nil: still open), and the answers.
            @Sendable func trickle(_ head: String) -> (after: Duration?, statuses: [Int]) {
                guard let client = WireClient(port: port), client.send(Array(head.utf8)) else { return (nil, []) }
                let started = ContinuousClock.now
                var statuses: [Int] = []
                while ContinuousClock.now - started < .seconds(15) {
                    if client.readable {
                        guard let answer = client.next() else { return (ContinuousClock.now - started, statuses) }
                        statuses.append(answer.status)
                        continue
                    }
                    guard client.send([UInt8(ascii: " ")]) else { return (ContinuousClock.now - started, statuses) }
                    usleep(200_000)
                }
                return (nil, statuses)
            }
            /// A body held for its second half, then the same connection's next request past the body
            /// timeout: the statuses of both (a body that came whole leaves no time running).
            @Sendable func keptAlive() -> [Int] {
                let body = #"{"query":"{ character(id: 1) { name } }"}"#
                let head =
                    "POST /graphql HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count)\r\n\r\n"
                guard let client = WireClient(port: port), client.send(Array((head + body.prefix(10)).utf8)) else {
                    return []
                }
                usleep(100_000)
                let first = client.exchange(String(body.dropFirst(10)), answers: 1).map(\.status)
                usleep(1_500_000)
                return first
                    + client.exchange("GET /api/character/3 HTTP/1.1\r\nHost: a\r\n\r\n", answers: 1).map(\.status)
            }
            let (held, drained, kept) = await onOwnThread {
                (
                    trickle(
                        "POST /graphql HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
                            + "Content-Length: 200\r\n\r\n"),
                    trickle("POST /api/character/2 HTTP/1.1\r\nHost: a\r\nContent-Length: 200\r\n\r\n"),
                    keptAlive()
                )
            }
            // Cut at its time, not before (the bound above it is room for a stalled machine).
            let cut = Duration.milliseconds(900)..<Duration.seconds(10)
            #expect(held.after.map(cut.contains) == true && held.statuses == [408], "held GraphQL body: \(held)")
            // Answered 405 at its head, then its body drained until it is cut.
            #expect(drained.after.map(cut.contains) == true && drained.statuses == [405], "drained body: \(drained)")
            #expect(kept == [200, 200], "a body that came whole, then the connection's next request: \(kept)")
            try await http.server.stop()
        }
    }
}
