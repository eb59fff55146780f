import NIOCore

/// Writes complete frames (length header included) into one buffer, ready to be written to a channel.
///
/// The header is reserved first and filled in when the payload is done, so a frame costs one
/// allocation and one write.
public struct FrameBuilder {
    /// The frame so far.
    public private(set) var buffer: ByteBuffer

    /// Starts a frame with room for `capacity` payload bytes.
    public init(allocator: ByteBufferAllocator = ByteBufferAllocator(), capacity: Int = 256) {
        buffer = allocator.buffer(capacity: capacity + FrameDecoder.headerSize)
        buffer.writeInteger(UInt32(0), endianness: .big)
    }

    /// Appends raw bytes of JSON.
    public mutating func append(_ raw: String) {
        buffer.writeString(raw)
    }

    /// Appends raw bytes of JSON from a buffer, without decoding them.
    public mutating func append(_ raw: ByteBuffer) {
        var raw = raw
        buffer.writeBuffer(&raw)
    }

    /// Appends a JSON string literal, quoted and escaped.
    public mutating func appendString(_ value: String) {
        JSONText.writeQuoted(value, into: &buffer)
    }

    /// Appends an error's wire form.
    public mutating func append(error: RPCError) {
        error.write(into: &buffer)
    }

    /// Appends an integer as a JSON number.
    public mutating func appendInteger<I: BinaryInteger>(_ value: I) {
        buffer.writeString(String(value))
    }

    /// Fills in the length header and returns the frame.
    ///
    /// Consuming: the buffer is handed over, not shared with the builder, so filling in the
    /// header does not copy the frame (it did, a second allocation and a copy of every frame).
    public consuming func finish() -> ByteBuffer {
        buffer.setInteger(
            UInt32(buffer.readableBytes - FrameDecoder.headerSize), at: buffer.readerIndex, endianness: .big)
        return buffer
    }

    /// A frame holding `payload` as it is.
    public static func frame(payload: ByteBuffer) -> ByteBuffer {
        var builder = FrameBuilder(capacity: payload.readableBytes)
        builder.append(payload)
        return builder.finish()
    }
}
