import NIOCore

/// JSON text helpers for the few places that write JSON by hand.
public enum JSONText {
    /// Writes `value` as a quoted JSON string, escaping what JSON requires.
    public static func writeQuoted(_ value: String, into buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(ascii: "\""))
        let utf8 = value.utf8
        let needsEscape = utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
        if !needsEscape {
            buffer.writeString(value)
        } else {
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "\""): buffer.writeStaticString("\\\"")
                case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
                case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
                case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
                case 0..<0x20:
                    let hex = String(byte, radix: 16)
                    buffer.writeString("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                default: buffer.writeInteger(byte)
                }
            }
        }
        buffer.writeInteger(UInt8(ascii: "\""))
    }

    /// `value` as a quoted JSON string.
    public static func quoted(_ value: String) -> String {
        var buffer = ByteBuffer()
        writeQuoted(value, into: &buffer)
        return String(buffer: buffer)
    }
}
