import Foundation
import Histogram
import Messaging
import NIOCore
import NIOPosix

/// What to send, where, and how hard.
struct LoadSpecification: Sendable {
    var socketPath: String
    var connections: Int
    var inFlight: Int
    var method: String
    var params: String
    /// A trace id every request carries (`trace`), as the HTTP front's and rnmctl's do.
    var trace: String?

    /// Runs the load for `seconds` on one event loop (like the C reference client's one epoll
    /// thread) and merges every connection's histogram.
    func run(seconds: Double) async throws -> LoadResult {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let result = try await run(seconds: seconds, on: group)
            try await group.shutdownGracefully()
            return result
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    private func run(seconds: Double, on group: MultiThreadedEventLoopGroup) async throws -> LoadResult {
        let traced = trace.map { #","trace":"\#($0)""# } ?? ""
        let frames = (0..<inFlight).map { slot in
            FrameBuilder.frame(
                payload: ByteBuffer(
                    string: #"{"jsonrpc":"2.0","id":\#(slot),"method":"\#(method)"\#(traced),"params":\#(params)}"#))
        }
        let deadline = NIODeadline.now() + .nanoseconds(Int64(seconds * 1e9))
        let started = NIODeadline.now()
        var channels: [Channel] = []
        var finished: [EventLoopFuture<ConnectionTally>] = []
        for _ in 0..<connections {
            let promise = group.next().makePromise(of: ConnectionTally.self)
            let channel = try await ClientBootstrap(group: group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandlers([
                            ByteToMessageHandler(FrameDecoder(maxFrameBytes: 16 << 20)),
                            ClosedLoopHandler(frames: frames, deadline: deadline, done: promise),
                        ])
                    }
                }
                .connect(unixDomainSocketPath: socketPath).get()
            channels.append(channel)
            finished.append(promise.futureResult)
        }
        var total = ConnectionTally()
        for future in finished {
            total.merge(try await future.get())
        }
        let elapsed = Double((NIODeadline.now() - started).nanoseconds) / 1e9
        for channel in channels { try? await channel.close() }
        return LoadResult(connections: connections, inFlight: inFlight, tally: total, seconds: elapsed)
    }
}

/// One connection's count.
struct ConnectionTally: Sendable {
    var histogram = Histogram<UInt64>(
        lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
    var errors = 0
    var firstError: String?

    mutating func merge(_ other: ConnectionTally) {
        histogram.add(other.histogram)
        errors += other.errors
        firstError = firstError ?? other.firstError
    }
}

/// Keeps `frames.count` requests in flight: each reply is timed and its slot sent again,
/// until the deadline. Everything happens on the channel's event loop.
final class ClosedLoopHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let frames: [ByteBuffer]
    private let deadline: NIODeadline
    private let done: EventLoopPromise<ConnectionTally>
    private var sentAt: [UInt64]
    private var outstanding = 0
    private var finished = false
    private var tally = ConnectionTally()

    init(frames: [ByteBuffer], deadline: NIODeadline, done: EventLoopPromise<ConnectionTally>) {
        self.frames = frames
        self.deadline = deadline
        self.done = done
        sentAt = Array(repeating: 0, count: frames.count)
    }

    func channelActive(context: ChannelHandlerContext) {
        for slot in frames.indices { send(slot, context: context) }
        context.flush()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let now = DispatchTime.now().uptimeNanoseconds
        let payload = unwrapInboundIn(data)
        // Replies in rnm's own layout are located by their ends, as the Gateway reads them: the
        // load generator must not spend more per reply than the process it measures (the C
        // client of the reference reads bytes and parses nothing).
        guard let envelope = Envelope.canonicalResponse(payload) ?? (try? Envelope(parsing: payload)),
            let id = envelope.integerID, let slot = Int(exactly: id),
            frames.indices.contains(slot)
        else {
            fail("unreadable reply", context: context)
            return
        }
        _ = tally.histogram.record((now - sentAt[slot]) / 1000)
        if envelope.error != nil {
            tally.errors += 1
            if tally.firstError == nil { tally.firstError = String(buffer: payload) }
        }
        outstanding -= 1
        if NIODeadline.now() < deadline {
            send(slot, context: context)
            context.flush()
        } else if outstanding == 0 {
            finish()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !finished { fail("connection closed", context: context) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail("\(error)", context: context)
        context.close(promise: nil)
    }

    private func send(_ slot: Int, context: ChannelHandlerContext) {
        outstanding += 1
        sentAt[slot] = DispatchTime.now().uptimeNanoseconds
        context.write(wrapOutboundOut(frames[slot]), promise: nil)
    }

    private func fail(_ reason: String, context: ChannelHandlerContext) {
        tally.errors += outstanding
        tally.firstError = tally.firstError ?? reason
        outstanding = 0
        finish()
    }

    private func finish() {
        guard !finished else { return }
        finished = true
        done.succeed(tally)
    }
}

/// The measured figures.
struct LoadResult {
    var connections: Int
    var inFlight: Int
    var tally: ConnectionTally
    var seconds: Double

    var requests: Int { Int(tally.histogram.totalCount) }
    var errors: Int { tally.errors }
    var perSecond: Double { Double(requests) / seconds }
    func microseconds(_ percentile: Double) -> UInt64 { tally.histogram.valueAtPercentile(percentile) }

    var text: String {
        var lines = [
            String(
                format:
                    """
                    connections=%d in-flight=%d requests=%d errors=%d seconds=%.2f requests/s=%.0f p50=%dµs p99=%dµs \
                    p99.9=%dµs
                    """,
                connections, inFlight, requests, errors, seconds, perSecond,
                microseconds(50), microseconds(99), microseconds(99.9))
        ]
        if let error = tally.firstError { lines.append("first error: \(error.prefix(300))") }
        return lines.joined(separator: "\n")
    }

    var json: String {
        String(
            format:
                #"""
                {"connections":%d,"inFlight":%d,"requests":%d,"errors":%d,"seconds":%.3f,"perSecond":%.1f,"p50Us":%d,\#
                "p99Us":%d,"p999Us":%d}
                """#,
            connections, inFlight, requests, errors, seconds, perSecond, microseconds(50), microseconds(99),
            microseconds(99.9))
    }
}
