import Foundation
import Messaging
import NIOCore
import RnmAPI

/// Writes a JSON object member by member, splicing stored JSON as it is: this is how results
/// built from cached records avoid decoding and re-encoding them.
public struct JSONObjectWriter {
    private var buffer: ByteBuffer
    private var first = true

    public init(capacity: Int = 256) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
        buffer.writeInteger(UInt8(ascii: "{"))
    }

    private mutating func key(_ name: String) {
        if !first { buffer.writeInteger(UInt8(ascii: ",")) }
        first = false
        JSONText.writeQuoted(name, into: &buffer)
        buffer.writeInteger(UInt8(ascii: ":"))
    }

    /// A member whose value is raw JSON.
    public mutating func raw(_ name: String, _ json: Data) {
        key(name)
        buffer.writeBytes(json)
    }

    /// A member whose value is raw JSON.
    public mutating func raw(_ name: String, _ json: ByteBuffer) {
        key(name)
        var json = json
        buffer.writeBuffer(&json)
    }

    /// A member whose value is an array of raw JSON values.
    public mutating func array(_ name: String, _ elements: [Data]) {
        key(name)
        buffer.writeInteger(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
            buffer.writeBytes(element)
        }
        buffer.writeInteger(UInt8(ascii: "]"))
    }

    /// A string member (null when nil).
    public mutating func string(_ name: String, _ value: String?) {
        key(name)
        if let value { JSONText.writeQuoted(value, into: &buffer) } else { buffer.writeStaticString("null") }
    }

    /// An integer member.
    public mutating func integer(_ name: String, _ value: Int) {
        key(name)
        buffer.writeString(String(value))
    }

    /// A boolean member.
    public mutating func bool(_ name: String, _ value: Bool) {
        key(name)
        buffer.writeStaticString(value ? "true" : "false")
    }

    /// The freshness fields of docs/PROTOCOL.md §5.
    public mutating func freshness(_ freshness: Freshness) {
        string("source", freshness.source.rawValue)
        bool("stale", freshness.stale)
        string("fetchedAt", freshness.fetchedAt)
        if let error = freshness.upstreamError { string("upstreamError", error) }
        if freshness.revalidating == true { bool("revalidating", true) }
    }

    /// Closes the object and returns it.
    public func finish() -> ByteBuffer {
        var result = buffer
        result.writeInteger(UInt8(ascii: "}"))
        return result
    }
}
