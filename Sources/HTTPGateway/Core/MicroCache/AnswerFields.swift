import HTTPTypes
import NIOCore

/// Where an answer's fields are written, in order: `HTTPFields` for Hummingbird's side, or the
/// head's bytes (``HTTPHeadWriter``) for a hit answered from the request's bytes. The fields a
/// hit carries are listed once (``ResponseCache/Entry/writeFields(of:storedAt:now:into:)``,
/// ``PublicHeaders``) and written to either.
protocol AnswerFields {
    mutating func add(_ name: HTTPField.Name, _ value: String)
}

extension HTTPFields: AnswerFields {
    /// Sets the field (replacing one of that name, where it stands).
    mutating func add(_ name: HTTPField.Name, _ value: String) {
        self[name] = value
    }
}

/// An HTTP/1.1 answer's head written straight into bytes, as NIO's encoder writes one: the
/// status line, `name: value` lines, the empty line (``finish()``).
struct HTTPHeadWriter: AnswerFields {
    private(set) var buffer: ByteBuffer

    /// A head for `status`, with room for `extra` bytes after it (a body sent in the same buffer).
    init(status: HTTPResponse.Status, allocator: ByteBufferAllocator, extra: Int = 0) {
        buffer = allocator.buffer(capacity: 512 + extra)
        buffer.writeStaticString("HTTP/1.1 ")
        buffer.writeString(String(status.code))
        buffer.writeStaticString(" ")
        buffer.writeString(status.reasonPhrase)
        buffer.writeStaticString("\r\n")
    }

    /// A head that starts with `start` (a stored status line and fields: ``ResponseCache/Entry/okHead(for:)``).
    init(continuing start: ByteBuffer, allocator: ByteBufferAllocator, extra: Int = 0) {
        buffer = allocator.buffer(capacity: start.readableBytes + 256 + extra)
        buffer.writeImmutableBuffer(start)
    }

    mutating func add(_ name: HTTPField.Name, _ value: String) {
        buffer.writeString(name.rawName)
        buffer.writeStaticString(": ")
        buffer.writeString(value)
        buffer.writeStaticString("\r\n")
    }

    /// The head, ended.
    mutating func finish() -> ByteBuffer {
        buffer.writeStaticString("\r\n")
        return buffer
    }
}
