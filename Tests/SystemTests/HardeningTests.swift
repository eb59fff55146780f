import Foundation
import Messaging
import NIOCore
import RnmAPI
import ServiceRuntime
import Synchronization
import TestSupport
import Testing

extension FaultSuite {
    /// Scenario 9: one client can never hurt another (issue 13). Each test is one attack that
    /// once worked, against the real processes, with the others' requests watched.
    @Suite("9. one client never hurts another")
    struct Hardening {
        @Test("a 1 MiB method name gets a short error, and 5 requests another client has in flight all succeed")
        func hugeMethodName() async throws {
            try await RnmSystem.with { system in
                system.characterUpstream.latency = .milliseconds(300)
                let bystander = try await system.connect()
                let others = (1...5).map { id in
                    Task { try await bystander.call(RPCMethods.charactersGet, IDParams(id: id)).character.id }
                }
                try await waitUntil(10, "the bystander's requests reach the upstream") {
                    system.characterUpstream.requestCount >= 1
                }
                let attacker = try await RawConnection(socketPath: system.gatewaySocket)
                let method = "characters." + String(repeating: "a", count: Defaults.maxFrameBytes - 200)
                try await attacker.send(#"{"jsonrpc":"2.0","id":1,"method":"\#(method)"}"#)
                let reply = try await attacker.next(seconds: 10)
                #expect(reply?.errorCode == .methodNotFound)
                let message = reply?.rpcError?.message ?? ""
                #expect(message.utf8.count < 300, "the error quotes a short prefix only: \(message.utf8.count) bytes")
                var served: [Int] = []
                for task in others { served.append(try await task.value) }
                #expect(served == [1, 2, 3, 4, 5], "every request in flight from the other client succeeded")
                FaultReport.record(
                    "9. 1 MiB method name",
                    "error of \(message.utf8.count) bytes; 5/5 of another client's requests in flight succeeded")
                attacker.close()
                await bystander.close()
            }
        }

        @Test(
            "a request of exactly the frame limit that re-labelling would push over is refused alone; the link survives"
        )
        func relabelledMaximalFrame() async throws {
            // Frames of 12 KiB: a request filling one has params under the methods' 16 KiB cap
            // (which refuses larger padding first, -32602), so re-labelling is what it meets.
            let frameBytes = 12_288
            try await RnmSystem.with(settings: ["RNM_MAX_FRAME_BYTES": String(frameBytes)]) { system in
                let client = try await system.connect()
                // Give the Gateway's ids towards the service two digits.
                for id in 1...12 { _ = try await client.call(RPCMethods.charactersGet, IDParams(id: id)) }
                system.characterUpstream.latency = .milliseconds(300)
                let others = (20...24).map { id in
                    Task { try await client.call(RPCMethods.charactersGet, IDParams(id: id)).character.id }
                }
                try await waitUntil(10, "requests in flight") { system.characterUpstream.requestCount >= 13 }
                let attacker = try await RawConnection(socketPath: system.gatewaySocket)
                let head = #"{"jsonrpc":"2.0","id":1,"method":"characters.get","params":{"id":1,"pad":""#
                let tail = #""}}"#
                let pad = String(repeating: "x", count: frameBytes - head.utf8.count - tail.utf8.count)
                try await attacker.send(head + pad + tail)
                let reply = try await attacker.next(seconds: 10)
                #expect(reply?.errorCode == .tooLarge, "\(String(describing: reply?.rpcError))")
                var served: [Int] = []
                for task in others { served.append(try await task.value) }
                #expect(served == Array(20...24))
                let health = try await client.call(RPCMethods.gatewayHealth, NoParams())
                #expect(health.services["characters"]?.status == "up")
                FaultReport.record(
                    "9. re-labelled maximal frame",
                    """
                    -32006 for that request alone (\(reply?.rpcError?.message.prefix(80) ?? "")…); 5/5 others in \
                    flight succeeded
                    """
                )
                attacker.close()
                await client.close()
            }
        }

        @Test("2,000,000 invalid frames never read: the Gateway's memory stays bounded and others are served")
        func invalidFramesNeverRead() async throws {
            try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
                try await system.warmCharacter(1)
                let before = system.residentBytes(.gateway) ?? 0
                let flood = try BlockingSocket(path: system.gatewaySocket)
                // 4-byte payloads that are not JSON, each owed a -32700 reply, never read.
                let frame = [UInt8]([0, 0, 0, 4]) + Array("nope".utf8)
                let sent = await onOwnThread { flood.send(frame, times: 2_000_000, stallSeconds: 3) }
                let during = system.residentBytes(.gateway) ?? 0
                let latency = try await system.timedCachedGet()
                flood.close()
                try await waitUntil(10, "the Gateway notices the client left") {
                    (try? await system.timedCachedGet()) != nil
                }
                let after = system.residentBytes(.gateway) ?? 0
                #expect(during - before <= 64 << 20, "RSS \(megabytes(before)) → \(megabytes(during))")
                #expect(after - before <= 64 << 20, "RSS after the client left: \(megabytes(after))")
                // Served, not stuck behind the flood (which would be never): a wide bound, the
                // whole suite shares two cores; the figure is in the report.
                #expect(latency < .seconds(3))
                FaultReport.record(
                    "9. invalid frames never read",
                    """
                    \(sent) of 2,000,000 frames accepted before the Gateway stopped reading; Gateway RSS \
                    \(megabytes(before)) → \(megabytes(during)) → \(megabytes(after)) after; another client's \
                    cached get in \(ms(latency))
                    """
                )
            }
        }

        @Test("6,000 notifications: others' cached get and health are answered within 3 s, or 20× their time alone")
        func notificationFlood() async throws {
            try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
                try await system.warmCharacter(1)
                let client = try await system.connect()
                // The same reads with no flood: the reference of this run, on this machine.
                func slowestReads() async throws -> Duration {
                    var slowest = Duration.zero
                    for _ in 0..<10 {
                        slowest = max(slowest, try await system.timedCachedGet())
                        let started = ContinuousClock.now
                        _ = try await client.call(RPCMethods.gatewayHealth, NoParams(), timeout: .seconds(5))
                        slowest = max(slowest, ContinuousClock.now - started)
                    }
                    return slowest
                }
                let alone = try await slowestReads()
                // Each refresh of the flood waits 100 ms at the upstream: stuck behind it would be
                // 6,000 × 100 ms over the service's 32 upstream connections, ~19 s.
                system.characterUpstream.latency = .milliseconds(100)
                let attacker = try await RawConnection(socketPath: system.gatewaySocket)
                let flood = Task {
                    for batch in 0..<60 {
                        var bytes: [UInt8] = []
                        for index in 0..<100 {
                            let payload =
                                #"""
                                {"jsonrpc":"2.0","method":"characters.refresh",\#
                                "params":{"name":"n\#(batch * 100 + index)"}}
                                """#
                            bytes += frameBytes(Array(payload.utf8))
                        }
                        try await attacker.sendRaw(bytes)
                    }
                }
                try await waitUntil(10, "the flood reaches the upstream") {
                    system.characterUpstream.requestCount >= 50
                }
                let slowest = try await slowestReads()
                let upstreamRequests = system.characterUpstream.requestCount
                // 3 s, not 1: with both cores busy elsewhere (`stress-ng --cpu 2`) the slowest of 20
                // reads took 1.03 s, far from stuck all the same.
                #expect(
                    slowest < max(.seconds(3), alone * 20),
                    "slowest answer to another client: \(ms(slowest)) (alone: \(ms(alone)))")
                flood.cancel()
                attacker.close()
                await client.close()
                FaultReport.record(
                    "9. 6,000 notifications",
                    """
                    slowest cached get or health of another client: \(ms(slowest)) (\(ms(alone)) alone); \
                    \(upstreamRequests) refreshes had reached the upstream meanwhile
                    """
                )
            }
        }

        @Test("4 connections × 320 requests for a 440 KB reply, never read: the Gateway's memory stays bounded")
        func largeRepliesNeverRead() async throws {
            try await RnmSystem.with(settings: ["RNM_UNIVERSITIES_MAX_AGE": "600"]) { system in
                let client = try await system.connect()
                let states = try await client.call(RPCMethods.universitiesList, .init(country: "United States"))
                #expect(states.count > 2000)
                let before = system.residentBytes(.gateway) ?? 0
                var attackers: [BlockingSocket] = []
                let request = frameBytes(
                    Array(
                        #"{"jsonrpc":"2.0","id":1,"method":"universities.list","params":{"country":"United States"}}"#
                            .utf8))
                for _ in 0..<4 {
                    let socket = try BlockingSocket(path: system.gatewaySocket)
                    _ = await onOwnThread { socket.send(request, times: 320, stallSeconds: 3) }
                    attackers.append(socket)
                }
                let highest = Mutex(before)
                try await waitUntil(60, "the Gateway has nothing in flight") {
                    let now = system.residentBytes(.gateway) ?? 0
                    highest.withLock { $0 = max($0, now) }
                    let health = try? await client.call(RPCMethods.gatewayHealth, NoParams(), timeout: .seconds(5))
                    return health?.inFlight == 0
                }
                let peak = max(highest.withLock { $0 }, system.residentBytes(.gateway) ?? 0)
                let latency = try await system.timedCachedGet()
                for socket in attackers { socket.close() }
                #expect(peak - before <= 64 << 20, "RSS \(megabytes(before)) → peak \(megabytes(peak))")
                #expect(latency < .seconds(1))
                FaultReport.record(
                    "9. large replies never read",
                    """
                    4 × 320 requests for \(states.count) universities: Gateway RSS \(megabytes(before)) → peak \
                    \(megabytes(peak)); another client's cached get in \(ms(latency))
                    """
                )
                await client.close()
            }
        }

        @Test(
            "an avatar too big for one reply is a clear error for that request; the link and others' requests survive")
        func hugeAvatar() async throws {
            try await RnmSystem.with { system in
                let huge = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 900_000)
                system.characterFixtures.override = { request in
                    request.path.hasSuffix("/avatar/7.jpeg")
                        ? UpstreamResponse(status: 200, contentType: "image/png", body: huge) : nil
                }
                system.characterUpstream.latency = .milliseconds(300)
                let client = try await system.connect()
                let others = (1...5).map { id in
                    Task { try await client.call(RPCMethods.charactersGet, IDParams(id: id)).character.id }
                }
                let error = await rpcError {
                    try await client.call(RPCMethods.charactersImage, IDParams(id: 7), timeout: .seconds(10))
                }
                #expect(error?.code == .tooLarge, "\(String(describing: error))")
                #expect(error?.message.contains("characters.image") == true)
                var served: [Int] = []
                for task in others { served.append(try await task.value) }
                #expect(served == [1, 2, 3, 4, 5])
                let image = try await client.call(RPCMethods.charactersImage, IDParams(id: 1))
                #expect(image.contentType.hasPrefix("image/"))
                FaultReport.record(
                    "9. 900 KB avatar", "\(error?.message ?? "no error"); 5/5 others succeeded, the link kept")
                await client.close()
            }
        }
    }
}

extension RnmSystem {
    /// Fetches character `id` once so that later gets are cache hits.
    func warmCharacter(_ id: Int) async throws {
        let client = try await connect()
        _ = try await client.call(RPCMethods.charactersGet, IDParams(id: id))
        await client.close()
    }

    /// How long a new client waits for a cached `characters.get` of character 1.
    func timedCachedGet(timeout: Duration = .seconds(5)) async throws -> Duration {
        let started = ContinuousClock.now
        let client = try await connect()
        _ = try await client.call(RPCMethods.charactersGet, IDParams(id: 1), timeout: timeout)
        await client.close()
        return ContinuousClock.now - started
    }
}
