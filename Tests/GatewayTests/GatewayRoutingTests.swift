import Foundation
import Messaging
import NIOCore
import RnmAPI
import TestSupport
import Testing

@Suite("Gateway routing and forwarding", .cleansUp)
struct GatewayRoutingTests {
    @Test("each prefix reaches its service; gateway.* is answered by the Gateway; others are -32601")
    func routing() async throws {
        let harness = try await GatewayHarness.start()
        let client = try await harness.connect()
        for (prefix, service) in [
            ("characters", "characters"), ("locations", "characters"), ("episodes", "characters"),
            ("favorites", "characters"), ("universities", "universities"),
        ] {
            let reply = try await client.raw("\(prefix).list", #"{"page":2}"#)
            #expect(reply.resultText?.contains(#""service" : "\#(service)""#) == true, "\(prefix)")
            #expect(reply.resultText?.contains(#""method":"\#(prefix).list""#) == true)
        }
        let health = try await client.call(RPCMethods.gatewayHealth, NoParams())
        #expect(health.status == "ok")
        for method in ["pets.list", "gateway.nope", "characters", "nodot"] {
            let reply = try await client.raw(method)
            #expect(reply.rpcError?.code == .methodNotFound, "\(method)")
            #expect(reply.rpcError?.service == "gateway")
        }
        await client.close()
        try await harness.stop()
    }

    @Test("the result's bytes arrive exactly as the service wrote them")
    func bytesUnchanged() async throws {
        let harness = try await GatewayHarness.start()
        let client = try await harness.connect()
        let params = #"{"name" : "Rick Sánchez",   "x":[1, 2.50, {"y":null}], "s":"\u00e9\n"}"#
        let reply = try await client.raw("characters.echo", params)
        let expected =
            #"{ "service" : "characters",  "method":"characters.echo" , "params": "# + params
            + #", "note": "Ünïcödé \u00e9 \"quoted\" \/ 1.50e3" }"#
        #expect(reply.resultText == expected)
        await client.close()
        try await harness.stop()
    }

    @Test("many clients using the same ids at once each get their own replies back, ids restored")
    func sameIDsManyClients() async throws {
        let harness = try await GatewayHarness.start()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for clientIndex in 0..<16 {
                group.addTask {
                    let raw = try await RawConnection(socketPath: harness.gateway.socketPath)
                    for id in 1...40 {
                        let method = id.isMultiple(of: 2) ? "characters.echo" : "universities.echo"
                        try await raw.send(
                            #"""
                            {"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":{"client":\#(clientIndex),\#
                            "id":\#(id)}}
                            """#
                        )
                    }
                    try await raw.send(
                        #"""
                        {"jsonrpc":"2.0","id":"same","method":"characters.echo","params":{"client":\#(clientIndex),\#
                        "id":"same"}}
                        """#
                    )
                    var seen = Set<String>()
                    for _ in 0..<41 {
                        let reply = try #require(try await raw.next())
                        let id = String(buffer: try #require(reply.rawID))
                        let text = try #require(reply.resultText)
                        #expect(
                            text.contains(#""client":\#(clientIndex),"id":\#(id)}"#),
                            "client \(clientIndex) got \(text) for id \(id)")
                        seen.insert(id)
                    }
                    #expect(seen.count == 41)
                    raw.close()
                }
            }
            try await group.waitForAll()
        }
        try await harness.stop()
    }

    @Test("progress notifications reach the client that asked, with its own id")
    func progressForwarding() async throws {
        let harness = try await GatewayHarness.start()
        let raw = try await RawConnection(socketPath: harness.gateway.socketPath)
        try await raw.send(#"{"jsonrpc":"2.0","id":"sync-1","method":"characters.slow","params":{"ms":5,"steps":3}}"#)
        for step in 1...3 {
            let notification = try #require(try await raw.next())
            #expect(notification.method == "progress")
            let range = try #require(notification.progressRequestIDRange)
            #expect(String(buffer: notification.slice(range)) == #""sync-1""#)
            #expect(String(buffer: try #require(notification.params)).contains(#""done":\#(step)"#))
        }
        let reply = try #require(try await raw.next())
        #expect(reply.kind == .response)
        #expect(reply.rawID.map { String(buffer: $0) } == #""sync-1""#)
        raw.close()
        try await harness.stop()
    }

    @Test("a request past the deadline is -32004; progress restarts the deadline")
    func deadline() async throws {
        let harness = try await GatewayHarness.start(requestTimeout: .milliseconds(3000))
        let client = try await harness.connect()
        let started = ContinuousClock.now
        let hung = try await client.raw("universities.hang")
        #expect(hung.rpcError?.code == .timeout)
        #expect(hung.rpcError?.retryable == true)
        // The deadline fired (not some later timeout): well under the 10 s the harness allows a
        // call, with room for a machine whose two cores are busy with the whole suite and a build.
        #expect(ContinuousClock.now - started < .seconds(8))
        // 10 steps of 400 ms: 4 s in all, but never 3 s without progress (the margin is wide:
        // the whole suite starting at once on two cores has stalled a process for 2 s).
        let progressing = try await client.raw("characters.slow", #"{"ms":400,"steps":10}"#)
        #expect(progressing.result != nil, "\(String(buffer: progressing.payload))")
        await client.close()
        await harness.gateway.cancel()
        await harness.universities?.cancel()
        try await harness.characters?.stop()
    }

    @Test(
        """
        past the in-flight limit of a connection, requests get -32005 at once: all 6 before any of the 4 admitted 2 s \
        requests ends
        """
    )
    func overloadPerConnection() async throws {
        let harness = try await GatewayHarness.start(maxInFlightPerConnection: 4)
        let raw = try await RawConnection(socketPath: harness.gateway.socketPath)
        let sent = ContinuousClock.now
        for id in 1...10 {
            try await raw.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"characters.slow","params":{"ms":2000}}"#)
        }
        // In the order they come back: a refusal queued behind the admitted work (not "at once")
        // would come after their results, 2 s later.
        var replies: [(id: Int64?, overloaded: Bool, answered: Bool, after: Duration)] = []
        for _ in 0..<10 {
            let reply = try #require(try await raw.next(seconds: 20))
            replies.append(
                (reply.integerID, reply.rpcError?.code == .overloaded, reply.result != nil, ContinuousClock.now - sent))
        }
        let firstSix = replies.prefix(6).compactMap(\.id).sorted()
        #expect(firstSix == [5, 6, 7, 8, 9, 10], "the 6 past the limit come back first: \(replies)")
        #expect(replies.prefix(6).allSatisfy { $0.overloaded }, "\(replies)")
        #expect(replies.suffix(4).allSatisfy { $0.answered }, "\(replies)")
        // The reference, measured here: the admitted requests' own 2 s (by the clock of this run).
        let lastRefusal = replies[5].after
        let firstAnswer = replies[6].after
        #expect(firstAnswer >= .seconds(2), "the admitted requests took their 2 s: \(firstAnswer)")
        #expect(lastRefusal < firstAnswer, "refused at \(lastRefusal), before the first answer at \(firstAnswer)")
        raw.close()
        try await harness.stop()
    }

    @Test("params padded past the method's cap are refused by the Gateway (-32602), never forwarded")
    func paramsCap() async throws {
        let started = Recorder<String>()
        let harness = try await GatewayHarness.start(started: started)
        let raw = try await RawConnection(socketPath: harness.gateway.socketPath)
        let padding = String(repeating: "x", count: 100_000)
        try await raw.send(#"{"jsonrpc":"2.0","id":1,"method":"characters.get","params":{"id":1,"pad":"\#(padding)"}}"#)
        let refused = try #require(try await raw.next())
        #expect(refused.rpcError?.code == .invalidParams)
        #expect(refused.rpcError?.message.contains("characters.get accepts at most 16384") == true)
        // The link and the connection carry on; the padded request never reached the service.
        try await raw.send(#"{"jsonrpc":"2.0","id":2,"method":"characters.slow","params":{"ms":1}}"#)
        #expect(try #require(try await raw.next()).result != nil)
        #expect(started.values.count == 1)
        raw.close()
        try await harness.stop()
    }

    @Test(
        "a service whose health hangs is reported down after RNM_HEALTH_TIMEOUT_MS; gateway.health answers, the rest up"
    )
    func healthOfAHungService() async throws {
        // The harness's own health timeout is 20 s (a busy machine's probes stay "up"); this one
        // is the shortest the setting takes, as a health check calling gateway.health needs it
        // under its own deadline.
        let harness = try await GatewayHarness.start(healthTimeout: .seconds(1), charactersHealthHangs: true)
        let client = try await harness.connect()
        let health = try await client.call(RPCMethods.gatewayHealth, NoParams(), timeout: .seconds(30))
        #expect(health.status == "degraded")
        #expect(health.services["characters"]?.status == "down")
        #expect(health.services["characters"]?.lastError?.contains("within 1000 ms") == true, "\(health.services)")
        #expect(health.services["universities"]?.status == "up")
        await client.close()
        try await harness.stop()
    }

    @Test("2,000 gateway.health at once: all answered ok from shared probes, one probe of a service at a time")
    func healthFlood() async throws {
        let started = Recorder<String>()
        let harness = try await GatewayHarness.start(started: started)
        var connections: [RawConnection] = []
        for _ in 0..<10 { connections.append(try await RawConnection(socketPath: harness.gateway.socketPath)) }
        for connection in connections {
            for id in 1...200 { try await connection.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"gateway.health"}"#) }
        }
        var statuses: [String: Int] = [:]
        for connection in connections {
            for _ in 0..<200 {
                let reply = try #require(try await connection.next(seconds: 20))
                let health = reply.result.flatMap { try? JSONCoding.decode(GatewayHealth.self, from: $0) }
                statuses[health?.status ?? "error: \(reply.rpcError?.message ?? "?")", default: 0] += 1
            }
            connection.close()
        }
        #expect(statuses == ["ok": 2000], "\(statuses)")
        // What the sharing promises is one probe at a time per service, however the flood
        // arrives; how many probes that makes depends on how fast the frames are read (CI: 224).
        var open = 0
        var mostAtOnce = 0
        for event in started.values where event.hasPrefix("characters.health") {
            open += event.hasSuffix(" done") ? -1 : 1
            mostAtOnce = max(mostAtOnce, open)
        }
        let probes = started.values.filter { $0 == "characters.health" }.count
        #expect(mostAtOnce == 1, "the CharacterService had \(mostAtOnce) health calls at once")
        #expect(probes <= 1000, "the CharacterService was asked \(probes) times for 2,000 calls")
        try await harness.stop()
    }

    @Test(
        "past the overall in-flight limit, a client with requests in flight gets -32005; one with none is still served"
    )
    func overloadOverall() async throws {
        let started = Recorder<String>()
        let harness = try await GatewayHarness.start(started: started, maxInFlight: 3)
        let first = try await harness.connect()
        let second = try await harness.connect()
        let slow = (0..<3).map { _ in Task { try await first.raw("characters.slow", #"{"ms":3000}"#) } }
        try await waitUntil(5, "3 requests in flight") { started.values.count == 3 }
        let refused = try await first.raw("universities.echo")
        #expect(refused.rpcError?.code == .overloaded)
        #expect(refused.rpcError?.retryable == true)
        // Issue 35, finding 7: clients holding the limit between them cannot shut out a newcomer.
        let newcomer = try await second.raw("universities.echo")
        #expect(newcomer.result != nil, "\(String(describing: newcomer.rpcError))")
        for task in slow { #expect(try await task.value.result != nil) }
        #expect(try await second.raw("universities.echo").result != nil)
        await first.close()
        await second.close()
        try await harness.stop()
    }

    @Test("a client that disconnects mid-request disturbs nobody")
    func clientDisconnects() async throws {
        let harness = try await GatewayHarness.start()
        let leaving = try await RawConnection(socketPath: harness.gateway.socketPath)
        for id in 1...20 {
            try await leaving.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"characters.slow","params":{"ms":200}}"#)
        }
        leaving.close()
        let staying = try await harness.connect()
        for _ in 0..<5 {
            #expect(try await staying.raw("characters.echo").result != nil)
        }
        let service = try await RPCClient.connect(
            socketPath: harness.directory + "/characters.sock", service: "characters")
        #expect(try await service.raw("characters.echo").result != nil)
        // The abandoned requests finish and their replies come back to be dropped: the path
        // under test. Waiting for the Gateway to count none in flight makes sure it was taken.
        try await waitUntil(5, "the 20 abandoned requests finished") {
            (try? await staying.call(RPCMethods.gatewayHealth, NoParams()).inFlight) == 0
        }
        #expect(try await staying.raw("characters.slow", #"{"ms":1}"#).result != nil)
        await service.close()
        await staying.close()
        try await harness.stop()
    }

    @Test("a client's rpc.cancel ends its forward at once (-32800) and the service's work")
    func cancelReachesTheService() async throws {
        let started = Recorder<String>()
        let harness = try await GatewayHarness.start(started: started)
        let raw = try await RawConnection(socketPath: harness.gateway.socketPath)
        // Connected first (the forward below then runs without a task of its own).
        try await raw.send(#"{"jsonrpc":"2.0","id":0,"method":"characters.echo"}"#)
        _ = try await raw.next()
        try await raw.send(#"{"jsonrpc":"2.0","id":"mine","method":"characters.slow","params":{"ms":60000}}"#)
        try await waitUntil(5, "the service started it") { started.values.contains("characters.slow") }
        let sent = ContinuousClock.now
        try await raw.send(#"{"jsonrpc":"2.0","method":"rpc.cancel","params":{"id":"mine"}}"#)
        // The service's work lasts a minute: an answer well before it is the cancel's, with room
        // for a busy machine (3 s against 5 was not always enough).
        let reply = try #require(try await raw.next(seconds: 20))
        #expect(reply.rpcError?.code == .cancelled && reply.rawID.map { String(buffer: $0) } == #""mine""#)
        #expect(ContinuousClock.now - sent < .seconds(20), "not the service's minute")
        try await waitUntil(5, "the service's work cancelled") { started.values.contains("cancelled characters.slow") }
        raw.close()
        try await harness.stop()
    }
}
