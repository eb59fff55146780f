import Foundation
import Messaging
import NIOCore
import NIOPosix
import RnmAPI
import Synchronization
import TestSupport
import Testing

private let sleepMethod = RPCMethod<SleepParams, ValueResult>("sleep")

@Suite("RPC client multiplexing", .cleansUp)
struct ClientTests {
    @Test("1,000 concurrent requests on one connection, answered out of order, each reply reaches its own caller")
    func thousandConcurrent() async throws {
        let server = try await RunningServer.start(handler: TestHandler())
        let client = try await server.connect()
        let completed = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<1000 {
                group.addTask {
                    // Later requests sleep less: replies come back in a different order than sent.
                    let result = try await client.call(
                        sleepMethod, .init(ms: (1000 - index) % 97, value: index), timeout: .seconds(20))
                    #expect(result.value == index)
                    return index
                }
            }
            var order: [Int] = []
            for try await index in group { order.append(index) }
            return order
        }
        #expect(completed.count == 1000)
        #expect(completed != completed.sorted(), "replies were expected out of order")
        await client.close()
        try await server.stop()
    }

    @Test("a request past its deadline fails with -32004; the connection keeps working")
    func deadline() async throws {
        let server = try await RunningServer.start(handler: TestHandler())
        let client = try await server.connect()
        let started = ContinuousClock.now
        await #expect(throws: RPCError.self) {
            try await client.call(RPCMethod<NoParams, ValueResult>("hang"), NoParams(), timeout: .milliseconds(200))
        }
        do {
            _ = try await client.call(RPCMethod<NoParams, ValueResult>("hang"), NoParams(), timeout: .milliseconds(200))
        } catch let error as RPCError {
            #expect(error.code == .timeout)
        }
        // Two 200 ms timeouts against calls that never end: far within 10 s, even on a busy machine.
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(try await client.call(sleepMethod, .init(ms: 0, value: 1)).value == 1)
        await client.close()
        await server.cancel()
    }

    @Test(
        """
        deadlines out of order on one connection: a short one sent after a long one still fails on time, the long one \
        later
        """
    )
    func deadlinesOutOfOrder() async throws {
        let server = try await RunningServer.start(handler: TestHandler())
        let client = try await server.connect()
        let hang = RPCMethod<NoParams, ValueResult>("hang")
        // The long deadline is far from the short one, so that a busy machine's delays (a second
        // and more under a parallel build) cannot blur which deadline a call failed at.
        let long = Task { try await client.call(hang, NoParams(), timeout: .seconds(6)) }
        let started = ContinuousClock.now
        do {
            _ = try await client.call(hang, NoParams(), timeout: .milliseconds(200))
            Issue.record("the short call was answered")
        } catch let error as RPCError {
            #expect(error.code == .timeout && error.message.contains("200 ms"))
        }
        // Failed at its own deadline, not at the long call's.
        #expect(ContinuousClock.now - started < .seconds(4))
        do {
            _ = try await long.value
            Issue.record("the long call was answered")
        } catch let error as RPCError {
            #expect(error.code == .timeout && error.message.contains("6000 ms"))
        }
        #expect(ContinuousClock.now - started >= .milliseconds(5800))
        await client.close()
        await server.cancel()
    }

    @Test("a call cancelled before it is registered fails at once with CancellationError, not at its deadline")
    func cancelledBeforeRegistered() async throws {
        let server = try await RunningServer.start(handler: TestHandler())
        let client = try await server.connect()
        let started = ContinuousClock.now
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }  // cancelled before the request is registered
            return try await client.call(RPCMethod<NoParams, ValueResult>("hang"), NoParams(), timeout: .seconds(30))
        }
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(try await client.call(sleepMethod, .init(ms: 0, value: 2)).value == 2)
        await client.close()
        await server.cancel()
    }

    @Test("progress notifications reach the caller of their request, in order")
    func progress() async throws {
        let server = try await RunningServer.start(handler: TestHandler())
        let client = try await server.connect()
        let seen = Recorder<ProgressUpdate>()
        let result = try await client.call(RPCMethod<ProgressParams, ValueResult>("progress"), .init(steps: 5)) {
            update in
            seen.append(update)
        }
        #expect(result.value == 5)
        #expect(seen.values.map(\.done) == [1, 2, 3, 4, 5])
        #expect(seen.values.last?.message == "step 5")
        await client.close()
        try await server.stop()
    }

    @Test("when the server dies, every pending request fails at once with -32003, and so do new ones")
    func serverDiesWithRequestsPending() async throws {
        let path = temporaryDirectory() + "/dying.sock"
        // A server that reads 20 requests, answers none, then drops the connection, as the
        // kernel does when a process is killed.
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        ByteToMessageHandler(FrameDecoder(maxFrameBytes: 1 << 20)),
                        DropAfter(count: 20),
                    ])
                }
            }
            .bind(unixDomainSocketPath: path).get()
        let client = try await RPCClient.connect(socketPath: path, service: "dying")
        let started = ContinuousClock.now
        let failures = try await withThrowingTaskGroup(of: RPCError?.self) { group in
            for index in 0..<20 {
                group.addTask {
                    do {
                        _ = try await client.call(sleepMethod, .init(ms: 0, value: index), timeout: .seconds(30))
                        return nil
                    } catch let error as RPCError {
                        return error
                    }
                }
            }
            var errors: [RPCError?] = []
            for try await error in group { errors.append(error) }
            return errors
        }
        #expect(ContinuousClock.now - started < .seconds(15), "pending requests must not wait for their 30 s deadline")
        #expect(failures.count == 20)
        #expect(failures.allSatisfy { $0?.code == .serviceUnavailable && $0?.service == "dying" })
        await #expect(throws: RPCError.self) { try await client.call(sleepMethod, .init(ms: 0, value: 0)) }
        #expect(!client.isActive)
        try await server.close()
    }

    @Test("connecting where nothing listens is -32003 naming the path")
    func nothingListening() async throws {
        let path = temporaryDirectory() + "/none.sock"
        do {
            _ = try await RPCClient.connect(socketPath: path, service: "characters")
            Issue.record("connected to nothing")
        } catch let error as RPCError {
            #expect(error.code == .serviceUnavailable)
            #expect(error.message.contains(path))
        }
    }
}

/// Counts frames and closes the connection after `count` of them.
private final class DropAfter: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let count: Int
    var received = 0

    init(count: Int) {
        self.count = count
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received += 1
        if received == count { context.close(promise: nil) }
    }
}
