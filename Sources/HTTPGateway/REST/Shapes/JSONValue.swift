import Messaging
import NIOCore

/// JSON with its object keys in the order they were given: the public APIs' records have a
/// fixed key order, and clients that print or diff them see it.
enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.int(a), .int(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// A string, or `null` for nil.
    static func string(_ value: String?) -> JSONValue {
        value.map(JSONValue.string) ?? .null
    }

    /// Compact JSON, as the public APIs send it.
    var bytes: ByteBuffer {
        var buffer = ByteBuffer()
        write(into: &buffer)
        return buffer
    }

    func write(into buffer: inout ByteBuffer) {
        switch self {
        case .null: buffer.writeStaticString("null")
        case .bool(let value): buffer.writeString(value ? "true" : "false")
        case .int(let value): buffer.writeString(String(value))
        case .string(let value): JSONText.writeQuoted(value, into: &buffer)
        case .array(let elements):
            buffer.writeStaticString("[")
            for (index, element) in elements.enumerated() {
                if index > 0 { buffer.writeStaticString(",") }
                element.write(into: &buffer)
            }
            buffer.writeStaticString("]")
        case .object(let members):
            buffer.writeStaticString("{")
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { buffer.writeStaticString(",") }
                JSONText.writeQuoted(key, into: &buffer)
                buffer.writeStaticString(":")
                value.write(into: &buffer)
            }
            buffer.writeStaticString("}")
        }
    }
}
