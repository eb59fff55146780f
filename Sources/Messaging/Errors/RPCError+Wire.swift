import NIOCore

extension RPCError {
    /// The error's wire form (docs/PROTOCOL.md §4), keys in `JSONCoding`'s sorted order:
    /// `{"code":…,"data":{"detail":…,"retryable":…,"service":…,"upstreamStatus":…},"message":…}`.
    ///
    /// Written by hand, not by `JSONEncoder`: a refusal must cost less than the work it refuses.
    /// With 400 connections flooding the Gateway and never reading, most of their requests end
    /// as short errors, and `JSONEncoder` building them was a quarter of the Gateway's CPU
    /// (perf, session 15). ``init(from:)`` reads the same form back.
    public func write(into buffer: inout ByteBuffer) {
        buffer.writeStaticString("{\"code\":")
        buffer.writeString(String(code.rawValue))
        buffer.writeStaticString(",\"data\":{")
        if let detail {
            buffer.writeStaticString("\"detail\":")
            JSONText.writeQuoted(detail, into: &buffer)
            buffer.writeStaticString(",")
        }
        buffer.writeStaticString(retryable ? "\"retryable\":true" : "\"retryable\":false")
        buffer.writeStaticString(",\"service\":")
        JSONText.writeQuoted(service, into: &buffer)
        if let upstreamStatus {
            buffer.writeStaticString(",\"upstreamStatus\":")
            buffer.writeString(String(upstreamStatus))
        }
        buffer.writeStaticString("},\"message\":")
        JSONText.writeQuoted(message, into: &buffer)
        buffer.writeStaticString("}")
    }

    /// ``write(into:)``'s bytes as text.
    public var json: String {
        var buffer = ByteBuffer()
        write(into: &buffer)
        return String(buffer: buffer)
    }
}
