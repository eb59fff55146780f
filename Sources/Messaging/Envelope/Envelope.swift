#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NIOCore
import Telemetry

/// One JSON-RPC 2.0 message, read only as far as routing needs: `jsonrpc`, `id` and `method`
/// are checked and located; `params`, `result` and `error` are located but never decoded.
///
/// Offsets are relative to the start of ``payload``'s readable bytes.
public struct Envelope: Sendable {
    /// What the message is.
    public enum Kind: Sendable, Equatable {
        /// Has `method` and `id`: wants a reply.
        case request
        /// Has `method`, no `id`: gets no reply.
        case notification
        /// Has `result` or `error`.
        case response
    }

    /// The frame's payload (the JSON text), as received.
    public let payload: ByteBuffer
    /// What the message is.
    public let kind: Kind
    /// The method name, for requests and notifications.
    public let method: String?
    /// Where the `id` value lies (absent for notifications).
    public let idRange: Range<Int>?
    /// Where the `params` value lies, if present.
    public let paramsRange: Range<Int>?
    /// Where the `result` value lies, if present.
    public let resultRange: Range<Int>?
    /// Where the `error` value lies, if present.
    public let errorRange: Range<Int>?
    /// Where the `trace` value lies, if present (docs/PROTOCOL.md §3: the request's trace id).
    public let traceRange: Range<Int>?
    /// Where the `client` value lies (a string, with its quotes, when it is one), if present
    /// (docs/PROTOCOL.md §3: who the request is for).
    public let clientRange: Range<Int>?

    /// The `id` exactly as its JSON bytes were sent (`7`, `"abc"`, `null`).
    public var rawID: ByteBuffer? { idRange.map(slice) }
    /// The `params` JSON bytes.
    public var params: ByteBuffer? { paramsRange.map(slice) }
    /// The `result` JSON bytes.
    public var result: ByteBuffer? { resultRange.map(slice) }
    /// The `error` JSON bytes.
    public var error: ByteBuffer? { errorRange.map(slice) }

    /// The `id` as an integer, when it is one that fits in 64 bits.
    public var integerID: Int64? {
        guard let range = idRange else { return nil }
        return payload.withUnsafeReadableBytes { bytes in
            var value: Int64 = 0
            var negative = false
            for (offset, byte) in bytes[range].enumerated() {
                if offset == 0, byte == UInt8(ascii: "-") { negative = true; continue }
                guard byte.isDigit else { return nil }
                let (times, o1) = value.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
                if o1 || o2 { return nil }
                value = sum
            }
            return negative ? -value : value
        }
    }

    /// Who the request is for (`client`, a string; at most ``RequestClient/maxBytes`` of it).
    public var client: String? {
        guard let range = clientRange, range.count >= 2,
            payload.getInteger(at: payload.readerIndex + range.lowerBound, as: UInt8.self) == UInt8(ascii: "\"")
        else { return nil }
        let length = min(range.count - 2, RequestClient.maxBytes)
        return payload.getString(at: payload.readerIndex + range.lowerBound + 1, length: length)
    }

    /// The request's trace id (`trace`: 32 lowercase hex digits, W3C's trace id), when it has a
    /// valid one; anything else there is ignored, as W3C says of a bad `traceparent`.
    public var traceID: String? {
        guard let range = traceRange, range.count == 34 else { return nil }
        let id = payload.getString(at: payload.readerIndex + range.lowerBound + 1, length: 32) ?? ""
        return RequestTrace.isValid(id) ? id : nil
    }

    /// An error reply's `error.code`, when it has an integer one.
    public var errorCode: RPCError.Code? {
        guard let range = errorRange else { return nil }
        return payload.withUnsafeReadableBytes { bytes -> RPCError.Code? in
            guard let scanned = try? JSONScanner.scan(bytes, range: range),
                let code = scanned.members.first(where: { Self.keyText($0, bytes) == "code" }),
                let value = Int(String(decoding: bytes[code.value], as: UTF8.self))
            else { return nil }
            return RPCError.Code(rawValue: value)
        }
    }

    /// The id's JSON text, for logs.
    public var idDescription: String {
        rawID.map { String(buffer: $0) } ?? "none"
    }

    /// Parses and checks a payload.
    ///
    /// - Throws: ``EnvelopeError/notJSON(_:)`` when the bytes are not one JSON value (in UTF-8),
    ///   ``EnvelopeError/invalid(_:rawID:)`` when they are JSON but not a JSON-RPC 2.0 message.
    public init(parsing payload: ByteBuffer) throws(EnvelopeError) {
        let scanned: (kind: JSONScanner.Kind, members: [JSONScanner.Member])
        do {
            scanned = try payload.withUnsafeReadableBytes { bytes throws(JSONScanner.Failure) in
                try JSONScanner.scan(bytes)
            }
        } catch {
            throw .notJSON(error)
        }
        switch scanned.kind {
        case .object: break
        case .array: throw .invalid("batch requests are not supported; send one request per frame", rawID: nil)
        default: throw .invalid("a message must be a JSON object", rawID: nil)
        }
        var fields = Fields()
        for member in scanned.members {
            let key = Self.key(member, in: payload)
            switch key {
            case "jsonrpc": fields.jsonrpc = member
            case "id": fields.id = member
            case "method": fields.method = member
            case "params": fields.params = member
            case "result": fields.result = member
            case "error": fields.error = member
            case "trace": fields.trace = member
            case "client": fields.client = member
            default: continue
            }
        }
        self.payload = payload
        self.idRange = fields.id?.value
        self.paramsRange = fields.params?.value
        self.resultRange = fields.result?.value
        self.errorRange = fields.error?.value
        self.traceRange = fields.trace.flatMap { $0.kind == .string ? $0.value : nil }
        // Of any kind: the Gateway replaces whatever stands there (a number is no client).
        self.clientRange = fields.client?.value
        let validID: ByteBuffer? = fields.id.flatMap {
            Self.isValidID($0, in: payload)
                ? payload.getSlice(at: payload.readerIndex + $0.value.lowerBound, length: $0.value.count) : nil
        }

        // Compared after unescaping: "\u0032.0" is "2.0" too.
        guard let version = fields.jsonrpc, version.kind == .string,
            Self.decodeString(version.value, in: payload) == "2.0"
        else {
            throw .invalid("\"jsonrpc\" must be \"2.0\"", rawID: validID)
        }
        if let id = fields.id, !Self.isValidID(id, in: payload) {
            let isResponseWithNullID =
                id.kind == .null && fields.method == nil && (fields.result != nil || fields.error != nil)
            if !isResponseWithNullID {
                throw .invalid("\"id\" must be a string or an integer", rawID: nil)
            }
        }
        if let method = fields.method {
            guard method.kind == .string, let name = Self.decodeString(method.value, in: payload), !name.isEmpty else {
                throw .invalid("\"method\" must be a non-empty string", rawID: validID)
            }
            if let params = fields.params, params.kind != .object {
                throw .invalid("\"params\" must be an object (by-name parameters)", rawID: validID)
            }
            self.method = name
            self.kind = fields.id == nil ? .notification : .request
        } else if fields.result != nil || fields.error != nil, fields.id != nil {
            guard (fields.result == nil) != (fields.error == nil) else {
                throw .invalid("a response carries exactly one of \"result\" and \"error\"", rawID: validID)
            }
            self.method = nil
            self.kind = .response
        } else {
            throw .invalid("missing \"method\"", rawID: validID)
        }
    }

    /// A success response in exactly the layout ``Frames/response(rawID:result:)`` writes
    /// (`{"jsonrpc":"2.0","id":<digits>,"result":…}`), located from its first bytes and its
    /// last: the result, usually most of the frame, is not read. Nil for anything else, which
    /// ``init(parsing:)`` then reads in full. A client of rnm's own processes (the Gateway
    /// reading its services' replies) gets every reply this way; it forwards the result as
    /// bytes and never decodes it.
    public static func canonicalResponse(_ payload: ByteBuffer) -> Envelope? {
        let ranges = payload.withUnsafeReadableBytes { bytes -> (id: Range<Int>, result: Range<Int>)? in
            let prefix = Self.responsePrefix, separator = Self.resultSeparator
            guard bytes.count > prefix.count + separator.count + 2, bytes.starts(with: prefix),
                bytes.last == UInt8(ascii: "}")
            else { return nil }
            var index = prefix.count
            let idStart = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            let digits = index - idStart
            guard (1...18).contains(digits), digits == 1 || bytes[idStart] != UInt8(ascii: "0"),
                bytes[index...].starts(with: separator)
            else { return nil }
            let resultStart = index + separator.count
            guard resultStart < bytes.count - 1 else { return nil }
            return (idStart..<index, resultStart..<(bytes.count - 1))
        }
        guard let ranges else { return nil }
        return Envelope(
            payload: payload, kind: .response, method: nil, idRange: ranges.id, paramsRange: nil,
            resultRange: ranges.result, errorRange: nil, traceRange: nil)
    }

    private static let responsePrefix = Array(#"{"jsonrpc":"2.0","id":"#.utf8)
    private static let resultSeparator = Array(#","result":"#.utf8)

    private init(
        payload: ByteBuffer, kind: Kind, method: String?, idRange: Range<Int>?, paramsRange: Range<Int>?,
        resultRange: Range<Int>?, errorRange: Range<Int>?, traceRange: Range<Int>?
    ) {
        self.payload = payload
        self.kind = kind
        self.method = method
        self.idRange = idRange
        self.paramsRange = paramsRange
        self.resultRange = resultRange
        self.errorRange = errorRange
        self.traceRange = traceRange
        self.clientRange = nil
    }

    // MARK: - Helpers

    private struct Fields {
        var jsonrpc, id, method, params, result, error, trace, client: JSONScanner.Member?
    }

    private static func isValidID(_ member: JSONScanner.Member, in payload: ByteBuffer) -> Bool {
        switch member.kind {
        case .string: return true
        case .number:
            return payload.withUnsafeReadableBytes { bytes in
                !bytes[member.value].contains {
                    $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E")
                }
            }
        default: return false
        }
    }

    private static func text(_ range: Range<Int>, in payload: ByteBuffer) -> String {
        payload.getString(at: payload.readerIndex + range.lowerBound, length: range.count) ?? ""
    }

    private static func key(_ member: JSONScanner.Member, in payload: ByteBuffer) -> String? {
        payload.withUnsafeReadableBytes { keyText(member, $0) }
    }

    static func keyText(_ member: JSONScanner.Member, _ bytes: UnsafeRawBufferPointer) -> String? {
        let raw = String(decoding: bytes[member.key], as: UTF8.self)
        return member.keyIsEscaped ? unescape(raw) : raw
    }

    /// Decodes a JSON string value (with its quotes) at `range`.
    private static func decodeString(_ range: Range<Int>, in payload: ByteBuffer) -> String? {
        guard range.count >= 2 else { return nil }
        // Bytes, not Characters: this runs for the method of every request.
        return payload.withUnsafeReadableBytes { bytes in
            let inner = bytes[(range.lowerBound + 1)..<(range.upperBound - 1)]
            let text = String(decoding: inner, as: UTF8.self)
            return inner.contains(UInt8(ascii: "\\")) ? unescape(text) : text
        }
    }

    /// Decodes the escapes of a JSON string's inside (rare: keys and methods are plain ASCII).
    private static func unescape(_ inner: String) -> String? {
        try? JSONDecoder().decode(String.self, from: Data("\"\(inner)\"".utf8))
    }
}

/// Why a payload is not a usable JSON-RPC message.
public enum EnvelopeError: Error, Sendable {
    /// Not one JSON value in UTF-8 (wire code -32700).
    case notJSON(JSONScanner.Failure)
    /// JSON, but not a valid JSON-RPC 2.0 message (wire code -32600). `rawID` is the request's
    /// id when it could be read, so the reply can name it.
    case invalid(String, rawID: ByteBuffer?)
}
