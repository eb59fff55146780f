#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NIOCore

/// The JSON coders every part of rnm uses, configured once.
public enum JSONCoding {
    /// Compact output, no escaped slashes, keys in a stable order.
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }

    /// A plain decoder.
    public static var decoder: JSONDecoder { JSONDecoder() }

    /// Encodes a value to a buffer.
    public static func encode<T: Encodable>(_ value: T) throws -> ByteBuffer {
        ByteBuffer(bytes: try encoder.encode(value))
    }

    /// Decodes a value from a buffer's readable bytes.
    public static func decode<T: Decodable>(_ type: T.Type, from buffer: ByteBuffer) throws -> T {
        try buffer.withUnsafeReadableBytes { bytes in
            try decoder.decode(T.self, from: Data(bytes))
        }
    }
}
