import Foundation
import Messaging
import NIOCore
import TestSupport
import Testing

/// Frames a client sent whole are answered, even when the server was holding them (reading
/// paused) as the client half-closed or as a bad frame came after them.
@Suite("Frames held while reading is paused", .cleansUp)
struct HalfCloseTests {
    /// One slow request (the only slot), a notification that must wait for it, then `tail`.
    private func sendWhilePaused(_ tail: ByteBuffer, to raw: RawConnection) async throws {
        var all = ByteBuffer()
        for json in [
            #"{"jsonrpc":"2.0","id":1,"method":"sleep","params":{"ms":300,"value":1}}"#,
            #"{"jsonrpc":"2.0","method":"sleep","params":{"ms":0,"value":9}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"sleep","params":{"ms":0,"value":2}}"#,
        ] {
            var frame = FrameBuilder.frame(payload: ByteBuffer(string: json))
            all.writeBuffer(&frame)
        }
        var tail = tail
        all.writeBuffer(&tail)
        try await raw.channel.writeAndFlush(all)
    }

    @Test(
        "requests behind a notification waiting for a slot, then a half-close: every request answered, then the close")
    func halfCloseWhilePaused() async throws {
        let server = try await RunningServer.start(handler: TestHandler(), maxInFlight: 1)
        let raw = try await RawConnection(socketPath: server.socketPath)
        try await sendWhilePaused(ByteBuffer(), to: raw)
        try await raw.channel.close(mode: .output)
        var ids: [Int64] = []
        while let reply = try await raw.next(seconds: 5) { ids.append(reply.integerID ?? -1) }
        #expect(ids.sorted() == [1, 2])
        try await server.stop()
    }

    @Test(
        """
        a frame over the limit behind held requests: they are read and answered, and it gets its -32600, then the close
        """
    )
    func badFrameWhilePaused() async throws {
        let server = try await RunningServer.start(handler: TestHandler(), maxFrameBytes: 4096, maxInFlight: 1)
        let raw = try await RawConnection(socketPath: server.socketPath)
        var oversized = ByteBuffer()
        oversized.writeInteger(UInt32(1 << 20))
        try await sendWhilePaused(oversized, to: raw)
        var replies: [(id: Int64?, code: Int?)] = []
        while let reply = try await raw.next(seconds: 5) {
            replies.append((reply.integerID, reply.errorCode?.rawValue))
        }
        // Request 2 may still be in flight when the bad frame's error goes out: replies come
        // as they are ready. What counts is that each gets one before the close.
        #expect(replies.compactMap(\.id).sorted() == [1, 2])
        #expect(replies.filter { $0.id == nil }.map(\.code) == [-32600])
        try await server.stop()
    }
}
