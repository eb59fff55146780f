/// A single-pass, validating JSON scanner over raw bytes.
///
/// It checks that the bytes are exactly one well-formed JSON value (RFC 8259, valid UTF-8,
/// nesting at most ``maxDepth`` deep) and, when that value is an object, reports where each
/// member's key and value lie, without building any value. This is what lets the Gateway and
/// the servers read `id` and `method` while forwarding `params` and `result` untouched.
public struct JSONScanner {
    /// The kind of a JSON value, from its first byte.
    public enum Kind: Sendable, Equatable {
        case object, array, string, number, bool, null
    }

    /// One member of an object: where its key (inside the quotes) and its value lie.
    public struct Member: Sendable {
        /// The key's bytes, without quotes, still escaped.
        public var key: Range<Int>
        /// True when the key holds a backslash escape.
        public var keyIsEscaped: Bool
        /// The value's bytes.
        public var value: Range<Int>
        /// The value's kind.
        public var kind: Kind
    }

    /// Why bytes are not one JSON value.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What was wrong.
        public var reason: String
        /// The byte offset where it was found.
        public var offset: Int
        public var description: String { "\(reason) at byte \(offset)" }
    }

    /// The deepest nesting of arrays and objects accepted.
    public static let maxDepth = 128

    private let bytes: UnsafeRawBufferPointer
    private var index: Int
    private let end: Int

    private init(bytes: UnsafeRawBufferPointer, range: Range<Int>) {
        self.bytes = bytes
        self.index = range.lowerBound
        self.end = range.upperBound
    }

    /// Validates that `range` of `bytes` is one JSON value; returns its kind and, for an object,
    /// its members (offsets are into `bytes`).
    public static func scan(
        _ bytes: UnsafeRawBufferPointer, range: Range<Int>? = nil
    ) throws(Failure) -> (kind: Kind, members: [Member]) {
        var scanner = JSONScanner(bytes: bytes, range: range ?? 0..<bytes.count)
        scanner.skipWhitespace()
        var members: [Member] = []
        // Room for an envelope's members (`jsonrpc`, `id`, `method`, `params`, `trace`, `client`)
        // at once: grown from empty, the array was allocated three times per frame.
        members.reserveCapacity(8)
        let kind = try scanner.value(depth: 0, members: &members, collect: true)
        scanner.skipWhitespace()
        guard scanner.index == scanner.end else {
            throw Failure(reason: "unexpected bytes after the JSON value", offset: scanner.index)
        }
        return (kind, members)
    }

    // MARK: - Grammar

    private func peek() -> UInt8? {
        index < end ? bytes[index] : nil
    }

    private mutating func skipWhitespace() {
        while index < end {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func fail(_ reason: String) -> Failure {
        Failure(reason: reason, offset: index)
    }

    private mutating func value(depth: Int, members: inout [Member], collect: Bool) throws(Failure) -> Kind {
        guard let byte = peek() else { throw fail("unexpected end of JSON") }
        switch byte {
        case UInt8(ascii: "{"):
            try container(closedBy: UInt8(ascii: "}"), depth: depth + 1, members: &members, collect: collect)
            return .object
        case UInt8(ascii: "["):
            try container(closedBy: UInt8(ascii: "]"), depth: depth + 1, members: &members, collect: false)
            return .array
        case UInt8(ascii: "\""):
            _ = try string()
            return .string
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try number()
            return .number
        default:
            throw fail("unexpected character")
        }
    }

    /// An object (`close` is `}`: members, each a name, a colon and a value) or an array (`]`:
    /// values), from its opening bracket. Only the top object's members are collected.
    private mutating func container(
        closedBy close: UInt8, depth: Int, members: inout [Member], collect: Bool
    ) throws(Failure) {
        guard depth <= Self.maxDepth else { throw fail("JSON nested deeper than \(Self.maxDepth)") }
        index += 1
        skipWhitespace()
        if peek() == close {
            index += 1
            return
        }
        let isObject = close == UInt8(ascii: "}")
        var ignored: [Member] = []
        while true {
            if isObject {
                try member(depth: depth, members: &members, collect: collect, ignored: &ignored)
            } else {
                _ = try value(depth: depth, members: &ignored, collect: false)
            }
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case close:
                index += 1
                return
            default:
                throw fail("expected ',' or '\(Character(Unicode.Scalar(close)))'")
            }
        }
    }

    /// One member of an object: its name, a colon, its value.
    private mutating func member(
        depth: Int, members: inout [Member], collect: Bool, ignored: inout [Member]
    ) throws(Failure) {
        guard peek() == UInt8(ascii: "\"") else { throw fail("expected a member name") }
        let keyStart = index + 1
        let escaped = try string()
        let key = keyStart..<(index - 1)
        skipWhitespace()
        guard peek() == UInt8(ascii: ":") else { throw fail("expected ':'") }
        index += 1
        skipWhitespace()
        let valueStart = index
        let kind = try value(depth: depth, members: &ignored, collect: false)
        if collect {
            members.append(Member(key: key, keyIsEscaped: escaped, value: valueStart..<index, kind: kind))
        }
    }

    /// Scans a string starting at its opening quote; returns whether it held an escape.
    private mutating func string() throws(Failure) -> Bool {
        index += 1
        var escaped = false
        while index < end {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return escaped
            case UInt8(ascii: "\\"):
                escaped = true
                index += 1
                guard let next = peek() else { throw fail("unterminated string") }
                switch next {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                    UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 1
                case UInt8(ascii: "u"):
                    index += 1
                    for _ in 0..<4 {
                        guard let hex = peek(), hex.isHexDigit else { throw fail("bad \\u escape") }
                        index += 1
                    }
                default:
                    throw fail("bad escape")
                }
            case 0..<0x20:
                throw fail("control character in string")
            case 0x20..<0x80:
                index += 1
            default:
                try utf8Sequence(lead: byte)
            }
        }
        throw fail("unterminated string")
    }

    /// Validates one multi-byte UTF-8 sequence (RFC 3629: no overlongs, no surrogates, ≤ U+10FFFF).
    private mutating func utf8Sequence(lead: UInt8) throws(Failure) {
        let count: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: count = 1
        case 0xE0: count = 2; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: count = 2
        case 0xED: count = 2; upper = 0x9F
        case 0xF0: count = 3; lower = 0x90
        case 0xF1...0xF3: count = 3
        case 0xF4: count = 3; upper = 0x8F
        default: throw fail("invalid UTF-8")
        }
        guard index + count < end else { throw fail("invalid UTF-8") }
        for offset in 1...count {
            let byte = bytes[index + offset]
            let (lo, hi) = offset == 1 ? (lower, upper) : (UInt8(0x80), UInt8(0xBF))
            guard byte >= lo, byte <= hi else { throw fail("invalid UTF-8") }
        }
        index += count + 1
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard index + count <= end else { throw fail("unexpected end of JSON") }
        let expected = UnsafeRawBufferPointer(start: word.utf8Start, count: count)
        for offset in 0..<count where bytes[index + offset] != expected[offset] {
            throw fail("unexpected character")
        }
        index += count
    }

    private mutating func number() throws(Failure) {
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), first.isDigit else { throw fail("bad number") }
        index += 1
        if first != UInt8(ascii: "0") {
            while let digit = peek(), digit.isDigit { index += 1 }
        }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard let digit = peek(), digit.isDigit else { throw fail("bad number") }
            while let digit = peek(), digit.isDigit { index += 1 }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let digit = peek(), digit.isDigit else { throw fail("bad number") }
            while let digit = peek(), digit.isDigit { index += 1 }
        }
    }
}

extension UInt8 {
    var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
    var isHexDigit: Bool {
        isDigit || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "f"))
            || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "F"))
    }
}
