import Foundation
import Messaging
import RnmAPI
import Synchronization
import TestSupport
import Testing

extension FaultSuite {
    /// Scenario 12: many clients together (issue 29, row 3). Per-connection limits bound one
    /// client; the process's budgets bound them all.
    @Suite("12. many clients together")
    struct ProcessBudgets {
        @Test(
            """
            200 connections asking for 418 KB replies and never reading: 40 admitted (39 beside a reader), the other \
            161 told why; RSS bounded
            """
        )
        func manyConnectionsNeverReading() async throws {
            let settings = [
                "RNM_UNIVERSITIES_MAX_AGE": "600", "RNM_CHARACTERS_MAX_AGE": "600",
                "RNM_MAX_CONNECTIONS": "40", "RNM_MAX_UNREAD_BYTES": String(16 << 20),
            ]
            try await RnmSystem.with(settings: settings) { system in
                try await system.warmCharacter(1)
                // The observer: connected first, so admitted, and it reads.
                let client = try await system.connect()
                _ = try await client.call(RPCMethods.universitiesList, .init(country: "United States"))
                let before = system.residentBytes(.gateway) ?? 0
                // The warming connection gone: the observer is the only client (as the Gateway counts).
                try await waitUntil(10, "the observer alone connected") {
                    await Self.connections(client) == 1
                }
                let request = frameBytes(
                    Array(
                        #"{"jsonrpc":"2.0","id":1,"method":"universities.list","params":{"country":"United States"}}"#
                            .utf8))
                var sockets: [BlockingSocket] = []
                for _ in 0..<200 {
                    let socket = try BlockingSocket(path: system.gatewaySocket)
                    _ = await onOwnThread { socket.send(request, times: 8, stallSeconds: 1) }
                    sockets.append(socket)
                }
                // One more, that reads: past the cap it is told why, then closed.
                let refused = try await RawConnection(socketPath: system.gatewaySocket)
                let why = try await refused.next()
                #expect(why?.rpcError?.code == .overloaded, "\(String(describing: why?.rpcError))")
                #expect(why?.rpcError?.message.contains("RNM_MAX_CONNECTIONS") == true)
                refused.close()
                let open = await Self.connections(client)
                let highest = Mutex(before)
                try await waitUntil(60, "the Gateway has nothing in flight") {
                    highest.withLock { $0 = max($0, system.residentBytes(.gateway) ?? 0) }
                    let health = try? await client.call(RPCMethods.gatewayHealth, NoParams(), timeout: .seconds(5))
                    return health?.inFlight == 0
                }
                let peak = max(highest.withLock { $0 }, system.residentBytes(.gateway) ?? 0)
                // What each of the 200 got first, read now: a reply (admitted) or the reason it was
                // refused (closed after it).
                let firsts = await onOwnThread { [sockets] in
                    sockets.map { socket in
                        String(decoding: socket.receiveFrames(1, seconds: 5).first ?? [], as: UTF8.self)
                    }
                }
                let admitted = firsts.filter { $0.contains(#""result":{"country""#) }.count
                let toldWhy = firsts.filter { $0.contains("-32005") && $0.contains("RNM_MAX_CONNECTIONS") }.count
                #expect(admitted == 39, "admitted beside the observer: \(admitted)")
                #expect(toldWhy == 161, "refused with the reason: \(toldWhy)")
                #expect(open == 40, "connections the Gateway held: \(open)")
                for socket in sockets { socket.close() }
                await client.close()
                let latency = try await waitForCachedGet(system)
                // 40 connections × one 418 KB reply each (always sent: nothing was waiting) plus
                // the 16 MiB budget; without the budgets, 2 MiB a connection for 200: 400 MB.
                #expect(peak - before <= 64 << 20, "RSS \(megabytes(before)) → peak \(megabytes(peak))")
                FaultReport.record(
                    "12. 200 connections never reading",
                    """
                    \(admitted) admitted beside a reader (RNM_MAX_CONNECTIONS 40), \(toldWhy) told why (-32005); \
                    Gateway RSS \(megabytes(before)) → peak \(megabytes(peak)) (budget 16 MiB); a cached get after \
                    in \(ms(latency))
                    """
                )
            }
        }

        @Test("a connection that said gateway.hello {holdReplies} has 10 replies of 418 KB held, none dropped")
        func heldRepliesAreNotDropped() async throws {
            let settings = [
                "RNM_UNIVERSITIES_MAX_AGE": "600", "RNM_CONNECTION_BUFFER_BYTES": String(1 << 20),
                "RNM_MAX_UNREAD_BYTES": String(24 << 20),
            ]
            try await RnmSystem.with(settings: settings) { system in
                let client = try await system.connect()
                _ = try await client.call(RPCMethods.universitiesList, .init(country: "United States"))
                let list =
                    #"{"jsonrpc":"2.0","id":1,"method":"universities.list","params":{"country":"United States"}}"#
                let hello = #"{"jsonrpc":"2.0","id":0,"method":"gateway.hello","params":{"holdReplies":true}}"#
                var answered: [String: Int] = [:]
                for (name, greeting) in [("anyone", nil), ("held", hello)] {
                    let socket = try BlockingSocket(path: system.gatewaySocket)
                    defer { socket.close() }
                    var frames = greeting.map { [frameBytes(Array($0.utf8))] } ?? []
                    frames += Array(repeating: frameBytes(Array(list.utf8)), count: 10)
                    _ = await onOwnThread { [frames] in socket.send(frames.flatMap { $0 }, times: 1, stallSeconds: 5) }
                    // Every reply written or dropped before any is read.
                    try await waitUntil(20, "nothing in flight") {
                        (try? await client.call(RPCMethods.gatewayHealth, NoParams(), timeout: .seconds(5)))?.inFlight
                            == 0
                    }
                    let replies = await onOwnThread { [count = frames.count] in socket.receiveFrames(count) }
                        .map { String(decoding: $0, as: UTF8.self) }
                    answered[name] = replies.filter { $0.contains(#""result":{"country""#) }.count
                    if greeting != nil {
                        #expect(replies.first?.contains(#""holdsReplies":true"#) == true, "\(replies.first ?? "")")
                    }
                }
                // 1 MiB of unread replies a connection for anyone: 2 or 3 of the 10 sent.
                #expect((answered["anyone"] ?? 0) < 10, "\(answered)")
                // Held: all 10 (4.2 MB) fit a quarter of the process's 24 MiB.
                #expect(answered["held"] == 10, "\(answered)")
                await client.close()
            }
        }

        /// Client connections the Gateway holds now (`rnm_rpc_connections`), -1 when unknown.
        private static func connections(_ client: RPCClient) async -> Int {
            guard let report = try? await client.call(RPCMethods.gatewayMetrics, NoParams(), timeout: .seconds(5)),
                let exposition = try? Exposition(report.exposition)
            else { return -1 }
            return Int(exposition.value("rnm_rpc_connections"))
        }

        /// A cached get once the Gateway has a free connection again.
        private func waitForCachedGet(_ system: RnmSystem) async throws -> Duration {
            let latency = Mutex<Duration?>(nil)
            try await waitUntil(10, "a connection free again") {
                guard let measured = try? await system.timedCachedGet() else { return false }
                latency.withLock { $0 = measured }
                return true
            }
            return latency.withLock { $0 } ?? .zero
        }
    }
}
