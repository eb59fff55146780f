import NIOCore

extension Envelope {
    /// The integer in `buffer` (a JSON number), if it is one.
    static func integer(in buffer: ByteBuffer) -> Int64? {
        guard let text = buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes) else { return nil }
        return Int64(text)
    }
}
