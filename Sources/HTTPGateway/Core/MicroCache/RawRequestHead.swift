import HTTPTypes
import NIOCore

/// A request's head read straight from its bytes by ``MicroCacheHitHandler``, before NIO's HTTP
/// decoder: enough to find where the request ends (its head, and a `Content-Length` body) and,
/// for a plain `GET` or `HEAD`, or a `POST` to GraphQL's path, what a micro-cache hit needs.
///
/// It reads a strict subset of HTTP/1.1 (RFC 9112): a token method, an origin-form target of
/// visible ASCII, `HTTP/1.0` or `HTTP/1.1`, CRLF line ends, token field names, field values
/// without control characters. Anything else is ``unframed``: its bytes go to NIO's decoder
/// as they came, which applies the real rules (and its limits) and answers `400` where it must.
enum RawRequestHead: Equatable {
    /// Not all of the head has come yet.
    case incomplete
    /// A head this reader does not frame (a chunked body, a bare LF, a folded line, ...), or one
    /// after which it frames no more (HTTP/1.0, a `Connection` field other than `keep-alive`, an
    /// `Upgrade`: the connection may end or change protocol after it, as NIO's side decides):
    /// from here on, the connection's bytes go to NIO's decoder as they come.
    case unframed
    /// A head of `length` bytes, then a body of `bodyLength`; `hit` when it is a plain `GET` or
    /// `HEAD` (no body), or a `POST` to GraphQL's path (with one), the micro-cache may answer.
    case framed(length: Int, bodyLength: Int, hit: HitRequest?)

    /// What a micro-cache hit reads of a request.
    struct HitRequest: Equatable {
        var method: HTTPRequest.Method
        var target: String
        var acceptEncoding: String?
        var ifNoneMatch: String?
        var traceparent: String?
        /// GraphQL's path (``PublicAPIRoutes/postPaths``): its answers are kept by the request as
        /// sent (``SentRequestKey``), which reads the two fields below, read for it alone.
        var graphQL = false
        var accept: String?
        var contentType: String?
    }

    /// The most fields a head answered as a hit has: NIO's decoder refuses a head with more than
    /// its `maxHeaderFieldCount` (1000, Hummingbird's default), so one with many goes on to it.
    static let maxHitFields = 100

    /// Whether `bytes` past `offset` hold a line end followed by an empty line (LF LF or
    /// LF CR LF): where a head can end, by the strict rules or a lenient reader's.
    static func mayEnd(_ bytes: ByteBuffer, after offset: Int) -> Bool {
        bytes.withUnsafeReadableBytes { bytes in
            var index = offset
            while index + 1 < bytes.count {
                if bytes[index] == UInt8(ascii: "\n") {
                    if bytes[index + 1] == UInt8(ascii: "\n") { return true }
                    if index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "\r"),
                        bytes[index + 2] == UInt8(ascii: "\n")
                    {
                        return true
                    }
                }
                index += 1
            }
            return false
        }
    }

    /// Reads the head at the start of `bytes`.
    static func read(_ bytes: UnsafeRawBufferPointer) -> RawRequestHead {
        var reader = Reader(bytes: bytes)
        return reader.read()
    }
}

/// The reader's cursor over the bytes: one pass, no copy but the strings a hit keeps.
private struct Reader {
    let bytes: UnsafeRawBufferPointer
    var at = 0

    private static let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n"), space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t"), colon = UInt8(ascii: ":")
    private static let version = Array("HTTP/1.".utf8)

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    mutating func read() -> RawRequestHead {
        // The request line: method SP target SP version CRLF.
        let methodEnd = skip(while: Self.isToken)
        guard methodEnd < bytes.count else { return .incomplete }
        guard methodEnd > 0, bytes[methodEnd] == Self.space else { return .unframed }
        let method = Self.method(bytes[0..<methodEnd])
        at += 1
        let targetStart = at
        let targetEnd = skip(while: { $0 > 0x20 && $0 < 0x7F })
        guard targetEnd < bytes.count else { return .incomplete }
        guard targetEnd > targetStart, bytes[targetEnd] == Self.space else { return .unframed }
        at += 1
        let version = Self.version
        guard bytes.count - at >= version.count + 3 else { return .incomplete }
        guard bytes[at..<at + version.count].elementsEqual(version) else { return .unframed }
        let minor = bytes[at + version.count]
        guard minor == UInt8(ascii: "0") || minor == UInt8(ascii: "1"),
            bytes[at + version.count + 1] == Self.cr, bytes[at + version.count + 2] == Self.lf
        else { return .unframed }
        at += version.count + 3
        var fields = Fields()
        while true {
            guard bytes.count - at >= 2 else { return .incomplete }
            if bytes[at] == Self.cr {
                guard bytes[at + 1] == Self.lf else { return .unframed }
                at += 2
                break
            }
            if let stop = readField(into: &fields) { return stop }
        }
        if fields.chunked || fields.handsOver || minor == UInt8(ascii: "0") { return .unframed }
        let framed = RawRequestHead.framed(length: at, bodyLength: fields.contentLength, hit: nil)
        guard let method, fields.plain, fields.count <= RawRequestHead.maxHitFields,
            bytes[targetStart] == UInt8(ascii: "/")
        else { return framed }
        let targetBytes = UnsafeRawBufferPointer(rebasing: bytes[targetStart..<targetEnd])
        let graphQL = PublicAPIRoutes.takesPost(target: targetBytes)
        // A read has no body; GraphQL's POST has its request in one.
        guard method == .post ? graphQL && fields.contentLength > 0 : fields.contentLength == 0 else { return framed }
        var hit = RawRequestHead.HitRequest(
            method: method, target: String(decoding: targetBytes, as: UTF8.self), acceptEncoding: fields.acceptEncoding,
            ifNoneMatch: fields.ifNoneMatch, traceparent: fields.traceparent)
        if graphQL {
            hit.graphQL = true
            hit.accept = fields.accept.map { String(decoding: bytes[$0], as: UTF8.self) }
            hit.contentType = fields.contentType.map { String(decoding: bytes[$0], as: UTF8.self) }
        }
        return .framed(length: at, bodyLength: fields.contentLength, hit: hit)
    }

    /// The fields that decide how a request is framed and answered.
    struct Fields {
        /// How many were read.
        var count = 0
        var contentLength = 0
        var sawContentLength = false
        var chunked = false
        /// `Connection` other than `keep-alive`, or `Upgrade`.
        var handsOver = false
        /// No field that asks for more than a stored answer (`Expect`), and none of those read
        /// here twice.
        var plain = true
        var acceptEncoding: String?
        var ifNoneMatch: String?
        var traceparent: String?
        /// Where `Accept` and `Content-Type` are: made strings only for GraphQL's path.
        var accept: Range<Int>?
        var contentType: Range<Int>?
    }

    /// Reads one `name: value CRLF` line into `fields`; nil once read, or why the head stops here.
    private mutating func readField(into fields: inout Fields) -> RawRequestHead? {
        let nameStart = at
        let nameEnd = skip(while: Self.isToken)
        guard nameEnd < bytes.count else { return .incomplete }
        guard nameEnd > nameStart, bytes[nameEnd] == Self.colon else { return .unframed }
        at += 1
        let valueEnd = skip(while: { $0 == Self.tab || ($0 >= 0x20 && $0 != 0x7F) })
        guard valueEnd + 1 < bytes.count else { return .incomplete }
        guard bytes[valueEnd] == Self.cr, bytes[valueEnd + 1] == Self.lf else { return .unframed }
        at += 2
        fields.count += 1
        var valueStart = nameEnd + 1
        var end = valueEnd
        while valueStart < end, bytes[valueStart] == Self.space || bytes[valueStart] == Self.tab { valueStart += 1 }
        while end > valueStart, bytes[end - 1] == Self.space || bytes[end - 1] == Self.tab { end -= 1 }
        let value = UnsafeRawBufferPointer(rebasing: bytes[valueStart..<end])
        switch Self.field(bytes[nameStart..<nameEnd]) {
        case .contentLength:
            guard !fields.sawContentLength, (1...18).contains(value.count), value.allSatisfy(Self.isDigit)
            else { return .unframed }
            fields.sawContentLength = true
            fields.contentLength = value.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        case .transferEncoding: fields.chunked = true
        case .notPlain: fields.plain = false
        case .handsOver: fields.handsOver = true
        case .connection:
            // `keep-alive` is HTTP/1.1's default said aloud (browsers say it on every request).
            if !value.elementsEqual("keep-alive".utf8, by: { $0 | 0x20 == $1 }) { fields.handsOver = true }
        case .acceptEncoding: Self.keep(value, in: &fields.acceptEncoding, plain: &fields.plain)
        case .ifNoneMatch: Self.keep(value, in: &fields.ifNoneMatch, plain: &fields.plain)
        case .traceparent: Self.keep(value, in: &fields.traceparent, plain: &fields.plain)
        case .accept: Self.mark(valueStart..<end, in: &fields.accept, plain: &fields.plain)
        case .contentType: Self.mark(valueStart..<end, in: &fields.contentType, plain: &fields.plain)
        case nil: break
        }
        return nil
    }

    private static func keep(_ value: UnsafeRawBufferPointer, in slot: inout String?, plain: inout Bool) {
        if slot != nil { plain = false }
        slot = String(decoding: value, as: UTF8.self)
    }

    private static func mark(_ range: Range<Int>, in slot: inout Range<Int>?, plain: inout Bool) {
        if slot != nil { plain = false }
        slot = range
    }

    private enum Field {
        case contentLength, transferEncoding, notPlain, handsOver, connection, acceptEncoding, ifNoneMatch, traceparent
        case accept, contentType
    }

    private static let fieldNames: [(name: [UInt8], field: Field)] = [
        ("content-length", Field.contentLength), ("transfer-encoding", .transferEncoding), ("connection", .connection),
        ("upgrade", .handsOver), ("expect", .notPlain), ("accept-encoding", .acceptEncoding),
        ("if-none-match", .ifNoneMatch), ("traceparent", .traceparent), ("accept", .accept),
        ("content-type", .contentType),
    ].map { (name: String, field: Field) in (Array(name.utf8), field) }

    /// The field a name is, in any case; nil for one that changes nothing here.
    private static func field(_ name: Slice<UnsafeRawBufferPointer>) -> Field? {
        for candidate in fieldNames where candidate.name.count == name.count {
            if zip(candidate.name, name).allSatisfy({ $0 == $1 | 0x20 }) { return candidate.field }
        }
        return nil
    }

    private static func method(_ name: Slice<UnsafeRawBufferPointer>) -> HTTPRequest.Method? {
        if name.elementsEqual("GET".utf8) { return .get }
        if name.elementsEqual("HEAD".utf8) { return .head }
        if name.elementsEqual("POST".utf8) { return .post }
        return nil
    }

    /// Moves past the bytes that match; where it stopped.
    private mutating func skip(while matches: (UInt8) -> Bool) -> Int {
        while at < bytes.count, matches(bytes[at]) { at += 1 }
        return at
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// RFC 9110 `tchar`.
    private static func isToken(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
