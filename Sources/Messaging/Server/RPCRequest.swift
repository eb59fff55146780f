import Logging
import NIOCore

/// One request as a handler sees it: its method and its raw `params`, decoded only on demand.
public struct RPCRequest: Sendable {
    /// The parsed envelope, as received.
    public let envelope: Envelope
    /// The method name.
    public var method: String { envelope.method ?? "" }

    public init(envelope: Envelope) {
        self.envelope = envelope
    }

    /// Decodes `params` (absent params decode as `{}`).
    /// - Throws: a `DecodingError`, which the server answers with -32602.
    public func decodeParams<P: Decodable>(_ type: P.Type = P.self) throws -> P {
        let params = envelope.params ?? ByteBuffer(string: "{}")
        do {
            return try JSONCoding.decode(P.self, from: params)
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            // Foundation says only "not valid JSON" for a number that does not fit an integer
            // (`1.5`, `1e30`): find the field, so that the error can name it.
            guard let field = Self.fieldWithNonIntegerNumber(in: params) else {
                throw DecodingError.dataCorrupted(context)
            }
            throw DecodingError.dataCorrupted(
                .init(codingPath: [FieldKey(stringValue: field)], debugDescription: "not a whole number"))
        }
    }

    /// The first top-level member of `params` holding a number (or an array of numbers) that
    /// is not a 64-bit integer.
    static func fieldWithNonIntegerNumber(in params: ByteBuffer) -> String? {
        params.withUnsafeReadableBytes { bytes -> String? in
            guard let scanned = try? JSONScanner.scan(bytes) else { return nil }
            for member in scanned.members where member.kind == .number || member.kind == .array {
                let text = String(decoding: bytes[member.value], as: UTF8.self)
                let tokens = text.split { "[], \n\r\t".contains($0) }
                let numbers = tokens.filter { $0.first.map { $0 == "-" || $0.isNumber } ?? false }
                if numbers.contains(where: { Int64($0) == nil }) {
                    return String(decoding: bytes[member.key], as: UTF8.self)
                }
            }
            return nil
        }
    }
}

/// A params member's name, as a coding key.
struct FieldKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
