import Foundation
import TestSupport
import Messaging
import NIOCore
import Testing

@Suite("RPC server over a Unix socket", .cleansUp)
struct ServerTests {
    @Test("a 0-length header gets one -32600 with id null, then the connection closes")
    func zeroLengthHeader() async throws {
        let server = try await RunningServer.start(handler: TestHandler())
        let raw = try await RawConnection(socketPath: server.socketPath)
        try await raw.sendRaw([0, 0, 0, 0])
        let reply = try #require(try await raw.next())
        #expect(reply.errorCode?.rawValue == -32600)
        #expect(reply.rawID.map { String(buffer: $0) } == "null")
        #expect(try await raw.next() == nil)
        try await raw.waitForClose()
        // The server still serves others.
        let client = try await server.connect()
        #expect(try await client.call(RPCMethod<SleepParams, ValueResult>("sleep"), .init(ms: 0, value: 5)).value == 5)
        try await server.stop()
    }

    @Test("an over-limit header is refused at once, without waiting for the announced body")
    func overLimitHeader() async throws {
        let server = try await RunningServer.start(handler: TestHandler(), maxFrameBytes: 1024)
        let raw = try await RawConnection(socketPath: server.socketPath)
        // Announce 1 GiB and send nothing more: a reply that arrives proves nothing was awaited.
        try await raw.sendRaw([0x40, 0x00, 0x00, 0x00])
        let reply = try #require(try await raw.next(seconds: 2))
        #expect(reply.errorCode?.rawValue == -32600)
        #expect(reply.rpcError?.message.contains("1073741824") == true)
        try await raw.waitForClose()
        try await server.stop()
    }

    @Test("invalid JSON and invalid UTF-8 get -32700 and the connection stays usable")
    func invalidJSONKeepsConnection() async throws {
        let server = try await RunningServer.start(handler: TestHandler())
        let raw = try await RawConnection(socketPath: server.socketPath)
        try await raw.send("{not json")
        #expect(try await raw.next()?.errorCode?.rawValue == -32700)
        var bad = ByteBuffer(string: #"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"s":""#)
        bad.writeBytes([0xC3, 0x28])
        bad.writeString(#""}}"#)
        try await raw.sendFrame(bad)
        let utf8Reply = try #require(try await raw.next())
        #expect(utf8Reply.errorCode?.rawValue == -32700)
        #expect(utf8Reply.rawID.map { String(buffer: $0) } == "null")
        try await raw.send(#"{"jsonrpc":"2.0","id":9,"method":"echo","params":{"ok":true}}"#)
        let reply = try #require(try await raw.next())
        #expect(reply.integerID == 9)
        #expect(reply.result.map { String(buffer: $0) } == #"{"ok":true}"#)
        raw.close()
        try await server.stop()
    }

    @Test("batch, missing method, wrong jsonrpc: -32600; unknown method: -32601 with the request's id")
    func invalidRequests() async throws {
        let server = try await RunningServer.start(handler: TestHandler())
        let raw = try await RawConnection(socketPath: server.socketPath)
        try await raw.send(#"[{"jsonrpc":"2.0","id":1,"method":"echo"}]"#)
        let batch = try #require(try await raw.next())
        #expect(batch.errorCode?.rawValue == -32600)
        #expect(batch.rpcError?.message.contains("batch") == true)
        try await raw.send(#"{"jsonrpc":"2.0","id":2}"#)
        let missing = try #require(try await raw.next())
        #expect(missing.errorCode?.rawValue == -32600)
        #expect(missing.integerID == 2)
        try await raw.send(#"{"jsonrpc":"1.0","id":3,"method":"echo"}"#)
        #expect(try await raw.next()?.errorCode?.rawValue == -32600)
        try await raw.send(#"{"jsonrpc":"2.0","id":"u","method":"no.such"}"#)
        let unknown = try #require(try await raw.next())
        #expect(unknown.errorCode?.rawValue == -32601)
        #expect(unknown.rawID.map { String(buffer: $0) } == #""u""#)
        #expect(unknown.rpcError?.service == "test")
        #expect(unknown.rpcError?.retryable == false)
        raw.close()
        try await server.stop()
    }

    @Test("invalid params are -32602; a handler bug is -32603; notifications get no reply")
    func handlerErrors() async throws {
        let server = try await RunningServer.start(handler: TestHandler())
        let raw = try await RawConnection(socketPath: server.socketPath)
        try await raw.send(#"{"jsonrpc":"2.0","method":"echo","params":{"x":1}}"#)
        try await raw.send(#"{"jsonrpc":"2.0","id":1,"method":"sleep","params":{"ms":"soon"}}"#)
        let invalid = try #require(try await raw.next())
        #expect(invalid.integerID == 1)  // the notification before it was not answered
        #expect(invalid.errorCode?.rawValue == -32602)
        #expect(invalid.rpcError?.message.contains("ms") == true)
        try await raw.send(#"{"jsonrpc":"2.0","id":2,"method":"boom"}"#)
        #expect(try await raw.next()?.errorCode?.rawValue == -32603)
        raw.close()
        try await server.stop()
    }

    @Test("a slow request does not hold up the next one on the same connection")
    func concurrentOnOneConnection() async throws {
        let server = try await RunningServer.start(handler: TestHandler())
        let raw = try await RawConnection(socketPath: server.socketPath)
        // 6 s against 5: room for a busy machine's stall (1.5 s against 2 was not).
        try await raw.send(#"{"jsonrpc":"2.0","id":1,"method":"sleep","params":{"ms":6000,"value":1}}"#)
        try await raw.send(#"{"jsonrpc":"2.0","id":2,"method":"sleep","params":{"ms":0,"value":2}}"#)
        let first = try #require(try await raw.next(seconds: 5))
        #expect(first.integerID == 2)
        raw.close()
        try await server.stop()
    }

    @Test("a frame left half read while the server withholds reads (its buffer full) is not timed out")
    func ownStallIsNotTheClients() async throws {
        let server = try await RunningServer.start(handler: TestHandler()) {
            $0.frameTimeout = .milliseconds(300)
            $0.connectionBufferBytes = 65_536
        }
        let raw = try await RawConnection(socketPath: server.socketPath)
        // Three 200 KB requests in one write: the first fills the 64 KiB buffer for a second,
        // and the second arrives meanwhile, part read and part left in the socket.
        let padding = String(repeating: "x", count: 200_001)
        var bytes: [UInt8] = []
        for value in 1...3 {
            let request =
                #"{"jsonrpc":"2.0","id":\#(value),"method":"sleep","params":{"ms":1000,"value":\#(value),"#
                + #""pad":"\#(padding)"}}"#
            bytes += FrameBuilder.frame(payload: ByteBuffer(string: request)).readableBytesView
        }
        try await raw.sendRaw(bytes)
        var values: [Int] = []
        for _ in 1...3 {
            let reply = try #require(try await raw.next(seconds: 10))
            #expect(reply.rpcError == nil, "\(String(describing: reply.rpcError))")
            values.append(reply.integerID.map(Int.init) ?? 0)
        }
        #expect(values.sorted() == [1, 2, 3])
        raw.close()
        try await server.stop()
    }

    @Test("the socket file is mode 0660 and is removed on shutdown")
    func socketMode() async throws {
        let server = try await RunningServer.start(handler: TestHandler())
        let attributes = try FileManager.default.attributesOfItem(atPath: server.socketPath)
        #expect((attributes[.posixPermissions] as? Int) == 0o660)
        try await server.stop()
        #expect(!FileManager.default.fileExists(atPath: server.socketPath))
    }

    @Test("graceful shutdown finishes requests in flight, then removes the socket")
    func gracefulShutdown() async throws {
        let started = Recorder<Int>()
        let server = try await RunningServer.start(handler: TestHandler(started: started))
        let client = try await server.connect()
        let slow = Task {
            try await client.call(
                RPCMethod<SleepParams, ValueResult>("sleep"), .init(ms: 500, value: 77), timeout: .seconds(5))
        }
        let raw = try await RawConnection(socketPath: server.socketPath)
        try await raw.send(#"{"jsonrpc":"2.0","id":1,"method":"sleep","params":{"ms":300,"value":1}}"#)
        try await waitUntil(5, "both requests started") { started.values.count == 2 }
        await server.group.triggerGracefulShutdown()
        #expect(try await slow.value.value == 77)
        #expect(try await raw.next()?.integerID == 1)
        try await within(5, "server exit") { try await server.task.value }
        #expect(!FileManager.default.fileExists(atPath: server.socketPath))
    }
}
