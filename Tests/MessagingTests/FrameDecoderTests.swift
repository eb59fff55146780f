import Messaging
import NIOCore
import NIOEmbedded
import Testing

@Suite("Frame decoder")
struct FrameDecoderTests {
    private func channel(max: Int = 1024) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(FrameDecoder(maxFrameBytes: max)))
        return channel
    }

    private func frame(_ text: String) -> ByteBuffer {
        FrameBuilder.frame(payload: ByteBuffer(string: text))
    }

    @Test("a frame split across many reads arrives whole, once")
    func splitFrame() throws {
        let channel = try channel()
        let bytes = Array(frame("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}").readableBytesView)
        for byte in bytes.dropLast() {
            try channel.writeInbound(ByteBuffer(bytes: [byte]))
            #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
        }
        try channel.writeInbound(ByteBuffer(bytes: [bytes.last!]))
        let payload = try #require(try channel.readInbound(as: ByteBuffer.self))
        #expect(String(buffer: payload) == "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}")
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
    }

    @Test("several frames in one read come out one by one, in order")
    func coalescedFrames() throws {
        let channel = try channel()
        var buffer = ByteBuffer()
        for index in 0..<5 {
            var one = frame("{\"n\":\(index)}")
            buffer.writeBuffer(&one)
        }
        // and half of a sixth
        let sixth = Array(frame("{\"n\":5}").readableBytesView)
        buffer.writeBytes(sixth.prefix(6))
        try channel.writeInbound(buffer)
        for index in 0..<5 {
            let payload = try #require(try channel.readInbound(as: ByteBuffer.self))
            #expect(String(buffer: payload) == "{\"n\":\(index)}")
        }
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
        try channel.writeInbound(ByteBuffer(bytes: sixth.dropFirst(6)))
        #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == "{\"n\":5}")
    }

    @Test("a header announcing 0 bytes is an error as soon as the header arrives")
    func zeroLength() throws {
        let channel = try channel()
        #expect(throws: FrameDecoderError(announcedLength: 0, maxFrameBytes: 1024)) {
            try channel.writeInbound(ByteBuffer(bytes: [0, 0, 0, 0]))
        }
    }

    @Test("an over-limit header fails on the 4 header bytes alone: the body is never waited for nor buffered")
    func overLimit() throws {
        let channel = try channel(max: 1024)
        // 0xFFFFFFFF bytes announced; if the decoder waited for the body it would return
        // needMoreData here and buffer whatever followed.
        #expect(throws: FrameDecoderError(announcedLength: Int(UInt32.max), maxFrameBytes: 1024)) {
            try channel.writeInbound(ByteBuffer(bytes: [0xFF, 0xFF, 0xFF, 0xFF]))
        }
        // What follows is refused (the handler is in its error state), never accumulated.
        #expect(throws: ByteToMessageDecoderError.self) {
            try channel.writeInbound(ByteBuffer(repeating: 0x41, count: 4096))
        }
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
    }

    @Test("a frame of exactly the limit passes; one byte more does not")
    func limitBoundary() throws {
        let channel = try channel(max: 16)
        let exact = String(repeating: "1", count: 16)
        try channel.writeInbound(frame(exact))
        #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == exact)
        #expect(throws: FrameDecoderError.self) {
            try channel.writeInbound(frame(exact + "1"))
        }
    }
}

@Suite("Frame timer")
struct FrameTimerTests {
    private func halfFrame(_ channel: EmbeddedChannel) throws {
        let frame = FrameBuilder.frame(payload: ByteBuffer(string: #"{"jsonrpc":"2.0","id":1,"method":"x"}"#))
        try channel.writeInbound(frame.getSlice(at: 0, length: 10)!)
    }

    @Test("half a frame for longer than the frame timeout is an error")
    func stalledPeer() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(FrameDecoder(maxFrameBytes: 1024, frameTimeout: .milliseconds(100))))
        try halfFrame(channel)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(99))
        #expect(throws: Never.self) { try channel.throwIfErrorCaught() }
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(2))
        #expect(throws: FrameTimeoutError.self) { try channel.throwIfErrorCaught() }
    }

    @Test("time while this end withholds reads is not the peer's: it gets the whole timeout after")
    func ownPauseNotCounted() throws {
        let channel = EmbeddedChannel()
        let pauses = ReadPauses()
        try channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(
                FrameDecoder(maxFrameBytes: 1024, frameTimeout: .milliseconds(100), pauses: pauses)))
        try halfFrame(channel)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(50))
        pauses.pause()
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(500))
        #expect(throws: Never.self) { try channel.throwIfErrorCaught() }
        pauses.resume(now: channel.embeddedEventLoop.now)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(99))
        #expect(throws: Never.self) { try channel.throwIfErrorCaught() }
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(102))
        #expect(throws: FrameTimeoutError.self) { try channel.throwIfErrorCaught() }
    }

    @Test("each frame gets the whole timeout from its own first bytes, however many came before it")
    func frameAfterFrame() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(FrameDecoder(maxFrameBytes: 1024, frameTimeout: .milliseconds(100))))
        let frame = FrameBuilder.frame(payload: ByteBuffer(string: #"{"jsonrpc":"2.0","id":1,"method":"x"}"#))
        // Frame after frame, each read in two halves 60 ms apart: never late, so never an error.
        for _ in 0..<5 {
            try channel.writeInbound(frame.getSlice(at: 0, length: 10)!)
            channel.embeddedEventLoop.advanceTime(by: .milliseconds(60))
            try channel.writeInbound(frame.getSlice(at: 10, length: frame.readableBytes - 10)!)
            #expect(try channel.readInbound(as: ByteBuffer.self) != nil)
            channel.embeddedEventLoop.advanceTime(by: .milliseconds(30))
        }
        #expect(throws: Never.self) { try channel.throwIfErrorCaught() }
        // Then one that stalls: late 100 ms after its own first bytes, not before.
        try halfFrame(channel)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(99))
        #expect(throws: Never.self) { try channel.throwIfErrorCaught() }
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(2))
        #expect(throws: FrameTimeoutError.self) { try channel.throwIfErrorCaught() }
    }
}
