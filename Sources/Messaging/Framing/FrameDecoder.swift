import NIOCore

/// Splits a byte stream into frames: a 4-byte big-endian length, then that many payload bytes.
///
/// The announced length is checked against the limit as soon as the header has arrived, before
/// any byte of the body is buffered: a header of 0 or over the limit raises
/// ``FrameDecoderError`` once, after which the decoder discards everything it is given.
/// The payloads it emits are slices of the read buffer, not copies.
///
/// With a `frameTimeout`, a frame that has begun must be complete within that time: a peer
/// that sends half a frame and then goes silent gets ``FrameTimeoutError`` instead of holding
/// the connection (and its buffer) open for ever. An idle connection between frames is fine,
/// and so is time during which this end withheld reads itself (``ReadPauses``).
public struct FrameDecoder: ByteToMessageDecoder, Sendable {
    public typealias InboundOut = ByteBuffer

    /// Bytes in the length header.
    public static let headerSize = 4

    private let maxFrameBytes: Int
    private var failed = false
    private let incompleteFrameTimer: FrameTimer?
    /// How much each turn of the event loop reads (nil: NIO's default, untouched).
    private let turns: ReadTurns?

    /// - Parameters:
    ///   - maxFrameBytes: the largest payload accepted (`RNM_MAX_FRAME_BYTES`).
    ///   - frameTimeout: how long a started frame may stay incomplete; nil waits for ever.
    ///   - pauses: when the reader after this decoder withholds reads (not counted).
    ///   - turns: the connection's read turns, widened for a frame larger than a turn.
    public init(maxFrameBytes: Int, frameTimeout: TimeAmount? = nil, pauses: ReadPauses? = nil, turns: ReadTurns? = nil)
    {
        self.maxFrameBytes = maxFrameBytes
        self.turns = turns
        self.incompleteFrameTimer = frameTimeout.map { FrameTimer(timeout: $0, pauses: pauses) }
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let state = try decodeFrame(context: context, buffer: &buffer)
        if let incompleteFrameTimer {
            if state == .continue || buffer.readableBytes == 0 {
                incompleteFrameTimer.done()
            } else if !failed {
                incompleteFrameTimer.start(context: context)
            }
        }
        return state
    }

    private mutating func decodeFrame(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState
    {
        if failed {
            buffer.moveReaderIndex(to: buffer.writerIndex)
            return .needMoreData
        }
        guard let length = buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt32.self) else {
            return .needMoreData
        }
        guard length > 0, Int(length) <= maxFrameBytes else {
            failed = true
            incompleteFrameTimer?.stop()
            buffer.moveReaderIndex(to: buffer.writerIndex)
            throw FrameDecoderError(announcedLength: Int(length), maxFrameBytes: maxFrameBytes)
        }
        guard buffer.readableBytes >= Self.headerSize + Int(length) else {
            turns?.frameNeeds(Self.headerSize + Int(length) - buffer.readableBytes, channel: context.channel)
            return .needMoreData
        }
        turns?.frameDone(channel: context.channel)
        buffer.moveReaderIndex(forwardBy: Self.headerSize)
        let payload = buffer.readSlice(length: Int(length))!
        context.fireChannelRead(wrapInboundOut(payload))
        return .continue
    }

    /// The decoder leaves the pipeline (NIO calls this, not ``decodeLast(context:buffer:seenEOF:)``,
    /// once a decode has thrown): its frame timer's task must not keep the channel alive.
    public mutating func decoderRemoved(context: ChannelHandlerContext) {
        incompleteFrameTimer?.stop()
    }

    public mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        incompleteFrameTimer?.stop()
        while try decodeFrame(context: context, buffer: &buffer) == .continue {}
        // A frame cut short by the peer closing is dropped: there is nobody left to answer.
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }
}

/// A frame header announced a length of 0 or more than the limit.
public struct FrameDecoderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The length the header announced.
    public let announcedLength: Int
    /// The limit in force.
    public let maxFrameBytes: Int

    public init(announcedLength: Int, maxFrameBytes: Int) {
        self.announcedLength = announcedLength
        self.maxFrameBytes = maxFrameBytes
    }

    public var description: String {
        if announcedLength == 0 {
            return "frame header announces 0 bytes; a frame carries 1 to \(maxFrameBytes) bytes"
        }
        return "frame header announces \(announcedLength) bytes, over the limit of \(maxFrameBytes)"
    }
}

/// A frame began but was not complete within the frame timeout.
public struct FrameTimeoutError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The time a started frame may take.
    public let timeout: TimeAmount

    public init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    public var description: String {
        "a frame started \(timeout.nanoseconds / 1_000_000) ms ago is still incomplete; closing the connection"
    }
}

/// A frame this process was about to send would be over the frame limit. Nothing over the
/// limit is ever written: the receiver would have to close the connection, failing every
/// other request on it.
public struct FrameTooLargeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the frame was: "the request to characters", "the reply to characters.image", ...
    public let what: String
    /// Its payload size.
    public let bytes: Int
    /// The limit in force.
    public let maxFrameBytes: Int

    public var description: String {
        "\(what) is \(bytes) bytes, over the frame limit of \(maxFrameBytes) bytes (RNM_MAX_FRAME_BYTES)"
    }

    /// Throws when `frame` (header included) carries more than `maxFrameBytes` of payload.
    public static func check(
        _ frame: ByteBuffer, maxFrameBytes: Int, what: @autoclosure () -> String
    ) throws(FrameTooLargeError) {
        let payload = frame.readableBytes - FrameDecoder.headerSize
        guard payload <= maxFrameBytes else {
            throw FrameTooLargeError(what: what(), bytes: payload, maxFrameBytes: maxFrameBytes)
        }
    }
}
