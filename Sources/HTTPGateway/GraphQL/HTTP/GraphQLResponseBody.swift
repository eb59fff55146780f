#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import GraphQL
import NIOCore

/// A GraphQL answer's bytes, written once into the `ByteBuffer` that is sent:
/// `{"errors": […], "data": …, "extensions": {"rnm": …}}`, each part only when it is there.
///
/// `data` is written straight from the executor's `Map`, byte for byte as `GraphQLJSONEncoder`
/// (`.withoutEscapingSlashes`) wrote it: keys in the order the query asked for them, an
/// undefined value of an object left out, numbers as their `Double`'s description without a
/// trailing `.0`, strings escaped as RFC 8259 requires and nothing more. The encoder built a
/// tree of `JSONValue`s, then an array of bytes, then `Data`, a `String` and the joined
/// `String` before the `ByteBuffer`: six copies of a large answer held at once.
enum GraphQLResponseBody {
    private static let encoder = {
        let encoder = GraphQLJSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return encoder
    }()

    private static let extensionEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()

    /// The answer's body. A part that cannot be encoded is left out, as it always was (a
    /// non-finite number, an undefined list item: the executor makes neither).
    static func body(errors: [GraphQLError], data: Map?, report: QueryContext.Report?) -> ByteBuffer {
        var written: ByteBuffer? = nil
        if let data {
            var buffer = ByteBuffer()
            if write(data, into: &buffer) { written = buffer }
        }
        return body(errors: errors, written: written, report: report)
    }

    /// The answer's body with `data` written already (``RecordExecutor``).
    static func body(errors: [GraphQLError], written data: ByteBuffer?, report: QueryContext.Report?) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity((data?.readableBytes ?? 0) + 64)
        buffer.writeStaticString("{")
        var empty = true
        if !errors.isEmpty, let text = try? encoder.encode(errors.map(ResponseError.init)) {
            buffer.writeStaticString(#""errors":"#)
            buffer.writeBytes(text)
            empty = false
        }
        if var data {
            if !empty { buffer.writeStaticString(",") }
            buffer.writeStaticString(#""data":"#)
            buffer.writeBuffer(&data)
            empty = false
        }
        if let report, let text = try? extensionEncoder.encode(report) {
            if !empty { buffer.writeStaticString(",") }
            buffer.writeStaticString(#""extensions":{"rnm":"#)
            buffer.writeBytes(text)
            buffer.writeStaticString("}")
        }
        buffer.writeStaticString("}")
        return buffer
    }

    /// Writes `value` as JSON; false when `GraphQLJSONEncoder` would have thrown (the caller
    /// drops what was written).
    static func write(_ value: Map, into buffer: inout ByteBuffer) -> Bool {
        switch value {
        case .undefined: return false
        case .null: buffer.writeStaticString("null")
        case .bool(true): buffer.writeStaticString("true")
        case .bool(false): buffer.writeStaticString("false")
        case .number(let number):
            let double = number.doubleValue
            guard double.isFinite else { return false }
            let text = double.description
            buffer.writeString(text.hasSuffix(".0") ? String(text.dropLast(2)) : text)
        case .string(let string): writeString(string, into: &buffer)
        case .array(let items):
            buffer.writeStaticString("[")
            for (index, item) in items.enumerated() {
                if index > 0 { buffer.writeStaticString(",") }
                guard write(item, into: &buffer) else { return false }
            }
            buffer.writeStaticString("]")
        case .dictionary(let fields):
            buffer.writeStaticString("{")
            var first = true
            for (key, item) in fields where !item.isUndefined {
                if !first { buffer.writeStaticString(",") }
                first = false
                writeString(key, into: &buffer)
                buffer.writeStaticString(":")
                guard write(item, into: &buffer) else { return false }
            }
            buffer.writeStaticString("}")
        }
        return true
    }

    /// A JSON string: `"` and `\` escaped, the control characters as `\b \f \n \r \t` or
    /// `\u00XX` (lowercase hex), everything else (slashes, non-ASCII) as it is.
    static func writeString(_ string: String, into buffer: inout ByteBuffer) {
        // Over the string's own UTF-8 storage (no copy for a native string): the indexed
        // `utf8` view checked its bounds and form at every byte of a 2 MB answer.
        var string = string
        string.withUTF8 { writeEscaped($0, into: &buffer) }
    }

    private static func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>, into buffer: inout ByteBuffer) {
        if !bytes.contains(where: needsEscape) {
            // Most strings (names, URLs, dates): quoted and copied in one write.
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: bytes.count + 2) { target in
                target[0] = UInt8(ascii: "\"")
                UnsafeMutableRawBufferPointer(rebasing: target[1...]).copyMemory(from: UnsafeRawBufferPointer(bytes))
                target[bytes.count + 1] = UInt8(ascii: "\"")
                return bytes.count + 2
            }
            return
        }
        buffer.writeStaticString("\"")
        var copied = 0
        for index in bytes.indices {
            let byte = bytes[index]
            guard needsEscape(byte) else { continue }
            buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[copied..<index])))
            switch byte {
            case UInt8(ascii: "\""): buffer.writeStaticString(#"\""#)
            case UInt8(ascii: "\\"): buffer.writeStaticString(#"\\"#)
            case 0x08: buffer.writeStaticString(#"\b"#)
            case 0x0C: buffer.writeStaticString(#"\f"#)
            case 0x0A: buffer.writeStaticString(#"\n"#)
            case 0x0D: buffer.writeStaticString(#"\r"#)
            case 0x09: buffer.writeStaticString(#"\t"#)
            default:
                let hex = Array("0123456789abcdef".utf8)
                buffer.writeStaticString(#"\u00"#)
                buffer.writeInteger(hex[Int(byte / 16)])
                buffer.writeInteger(hex[Int(byte % 16)])
            }
            copied = index + 1
        }
        buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[copied...])))
        buffer.writeStaticString("\"")
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
}
