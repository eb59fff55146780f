import Messaging
import NIOCore
import NIOPosix
import RnmAPI
import TestSupport
import Testing

private let sleepMethod = RPCMethod<SleepParams, ValueResult>("sleep")
private let hangMethod = RPCMethod<NoParams, ValueResult>("hang")

/// ``SerialRPCClient``, rnmctl's: the same wire and failures as ``RPCClient``, without an event loop.
/// Its calls block their thread: each test calls from ``ThreadsExecutor``'s, so that the
/// in-process server keeps the cooperative pool.
@Suite("RPC client without an event loop", .cleansUp)
struct SerialClientTests {
    @Test("calls one after the other and 20 at once (taking turns) each get their own reply")
    func callsInTurn() async throws {
        try await withTaskExecutorPreference(ThreadsExecutor.shared) {
            let server = try await RunningServer.start(handler: TestHandler())
            let client = try SerialRPCClient.connect(socketPath: server.socketPath, service: "test")
            for index in 0..<3 {
                #expect(try await client.call(sleepMethod, .init(ms: 0, value: index)).value == index)
            }
            let values = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<20 {
                    group.addTask { try await client.call(sleepMethod, .init(ms: 1, value: index)).value }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(values.sorted() == Array(0..<20))
            client.close()
            try await server.stop()
        }
    }

    @Test("a request past its deadline fails with -32004 naming it; the next call on the connection is answered")
    func deadline() async throws {
        try await withTaskExecutorPreference(ThreadsExecutor.shared) {
            let server = try await RunningServer.start(handler: TestHandler())
            let client = try SerialRPCClient.connect(socketPath: server.socketPath, service: "test")
            let started = ContinuousClock.now
            do {
                _ = try await client.call(hangMethod, NoParams(), timeout: .milliseconds(200))
                Issue.record("the hanging call was answered")
            } catch let error as RPCError {
                #expect(error.code == .timeout && error.message == "test did not answer within 200 ms")
            }
            // A 200 ms timeout against a call that never ends: far within 10 s on a busy machine.
            #expect(ContinuousClock.now - started < .seconds(10))
            #expect(try await client.call(sleepMethod, .init(ms: 0, value: 7)).value == 7)
            client.close()
            await server.cancel()
        }
    }

    @Test("progress notifications reach the caller in order, and each restarts the deadline")
    func progress() async throws {
        try await withTaskExecutorPreference(ThreadsExecutor.shared) {
            let server = try await RunningServer.start(handler: TestHandler())
            let client = try SerialRPCClient.connect(socketPath: server.socketPath, service: "test")
            let seen = Recorder<ProgressUpdate>()
            // Five steps 1 s apart: 5 s in all, under a deadline of 3 s (each step's 2 s of room is
            // for a busy machine: 0.7 s was not always enough).
            let result = try await client.call(
                RPCMethod<SleepParams, ValueResult>("slow-progress"), .init(ms: 1000, value: 5), timeout: .seconds(3)
            ) { seen.append($0) }
            #expect(result.value == 5)
            #expect(seen.values.map(\.done) == [1, 2, 3, 4, 5])
            client.close()
            try await server.stop()
        }
    }

    @Test("when the server goes away mid-call the call fails at once with -32003, and so do later ones")
    func serverGoes() async throws {
        let path = temporaryDirectory() + "/dying.sock"
        // Reads the request, answers nothing, drops the connection: a process killed mid-call.
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        ByteToMessageHandler(FrameDecoder(maxFrameBytes: 1 << 20)), CloseOnFirstFrame(),
                    ])
                }
            }
            .bind(unixDomainSocketPath: path).get()
        try await withTaskExecutorPreference(ThreadsExecutor.shared) {
            let client = try SerialRPCClient.connect(socketPath: path, service: "dying")
            let started = ContinuousClock.now
            do {
                _ = try await client.call(hangMethod, NoParams(), timeout: .seconds(30))
                Issue.record("the call was answered")
            } catch let error as RPCError {
                #expect(error.code == .serviceUnavailable && error.message == "connection to dying at \(path) closed")
            }
            #expect(ContinuousClock.now - started < .seconds(5), "the call must not wait for its 30 s deadline")
            await #expect(throws: RPCError.self) { try await client.call(sleepMethod, .init(ms: 0, value: 0)) }
        }
        try await server.close()
    }

    @Test("a frame over the client's limit is a protocol error (-32003), as RPCClient's")
    func frameOverLimit() async throws {
        try await withTaskExecutorPreference(ThreadsExecutor.shared) {
            let server = try await RunningServer.start(handler: TestHandler())
            // The request fits in 80 bytes; its first progress notification does not.
            let client = try SerialRPCClient.connect(socketPath: server.socketPath, service: "test", maxFrameBytes: 80)
            do {
                _ = try await client.call(RPCMethod<ProgressParams, ValueResult>("progress"), .init(steps: 1))
                Issue.record("a frame over the limit was read")
            } catch let error as RPCError {
                #expect(error.code == .serviceUnavailable && error.message.contains("protocol error from test"))
            }
            await server.cancel()
        }
    }

    @Test("connecting where nothing listens is -32003 naming the path and the reason")
    func nothingListening() {
        let path = temporaryDirectory() + "/none.sock"
        do {
            _ = try SerialRPCClient.connect(socketPath: path, service: "characters")
            Issue.record("connected to nothing")
        } catch let error as RPCError {
            #expect(error.code == .serviceUnavailable)
            #expect(error.message == "cannot connect to characters at \(path): No such file or directory")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}

/// Closes the connection when the first frame arrives.
private final class CloseOnFirstFrame: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.close(promise: nil)
    }
}
