import NIOCore

/// Splits a byte stream into frames: a 4-byte big-endian length, then that many payload bytes.
///
/// The announced length is checked against the limit as soon as the header has arrived, before
/// any byte of the body is buffered: a header of 0 or over the limit raises
/// ``FrameDecoderError`` once, after which the decoder discards everything it is given.
/// The payloads it emits are slices of the read buffer, not copies.
public struct FrameDecoder: ByteToMessageDecoder, Sendable {
    public typealias InboundOut = ByteBuffer

    /// Bytes in the length header.
    public static let headerSize = 4

    private let maxFrameBytes: Int
    private var failed = false

    /// - Parameter maxFrameBytes: the largest payload accepted (`RNM_MAX_FRAME_BYTES`).
    public init(maxFrameBytes: Int) {
        self.maxFrameBytes = maxFrameBytes
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if failed {
            buffer.moveReaderIndex(to: buffer.writerIndex)
            return .needMoreData
        }
        guard let length = buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt32.self) else {
            return .needMoreData
        }
        guard length > 0, Int(length) <= maxFrameBytes else {
            failed = true
            buffer.moveReaderIndex(to: buffer.writerIndex)
            throw FrameDecoderError(announcedLength: Int(length), maxFrameBytes: maxFrameBytes)
        }
        guard buffer.readableBytes >= Self.headerSize + Int(length) else {
            return .needMoreData
        }
        buffer.moveReaderIndex(forwardBy: Self.headerSize)
        let payload = buffer.readSlice(length: Int(length))!
        context.fireChannelRead(wrapInboundOut(payload))
        return .continue
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
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
