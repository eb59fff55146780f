@testable import HTTPGateway
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Telemetry
import Testing

/// Issue 40: the bytes' reader and NIO's decoder must agree on where each request ends, or a
/// request could be smuggled past one of them (a hit answered from bytes NIO reads as a body,
/// or the reverse). Generated heads, some well-formed and some mutated, each followed by a
/// sentinel request: wherever the reader frames a request, NIO ends that request at the same
/// byte and reads the sentinel next, with the same method and target, or refuses the bytes.
@Suite("HTTPGateway: the bytes' reader frames requests where NIO's decoder does")
struct RawFramingDifferentialTests {
    static let sentinel = Array("GET /sentinel HTTP/1.1\r\nHost: s\r\n\r\n".utf8)

    @Test(
        "5,000 generated heads: each framed request ends where NIO's decoder ends it; none it refuses is a hit"
    )
    func generated() throws {
        var random = SplitMix64(seed: 40)
        var (framed, hits) = (0, 0)
        for _ in 0..<5000 {
            let bytes = Self.request(&random) + Self.sentinel
            let text = String(decoding: bytes, as: UTF8.self).debugDescription
            let reader = Self.readerFrames(bytes)
            let nio = try Self.nioReads(bytes)
            framed += reader.count
            hits += reader.filter(\.hit).count
            // Each request the reader framed: NIO read one there too, with the same target and
            // body, or refused the bytes by then (it answers 400 and closes) and it was no hit.
            for (index, request) in reader.enumerated() {
                guard index < nio.requests.count else {
                    #expect(nio.refused && !request.hit, "\(text): NIO read \(nio.requests), the reader \(reader)")
                    break
                }
                #expect(nio.requests[index].target == request.target, "\(text): \(nio.requests) / \(reader)")
                #expect(nio.requests[index].body == request.body, "\(text): \(nio.requests) / \(reader)")
                if request.hit { #expect(nio.requests[index].method == request.method, "\(text)") }
            }
        }
        // The generator must reach both kinds, or this proves nothing.
        #expect(framed > 2000 && hits > 1000, "framed \(framed), hits \(hits)")
    }

    typealias Framed = (method: String, target: String, body: Int, hit: Bool)

    /// The requests the reader frames in `bytes`, in order, until it frames no more.
    static func readerFrames(_ bytes: [UInt8]) -> [Framed] {
        var frames: [Framed] = []
        var at = 0
        while at < bytes.count {
            let verdict = Array(bytes[at...]).withUnsafeBytes(RawRequestHead.read)
            guard case .framed(let length, let bodyLength, let hit) = verdict else { break }
            let line = String(decoding: bytes[at..<at + length], as: UTF8.self).split(separator: " ")
            frames.append((String(line[0]), String(line[1]), bodyLength, hit != nil))
            if let hit { #expect(hit.target == String(line[1]) && hit.method.rawValue == String(line[0])) }
            at += length + bodyLength
        }
        return frames
    }

    /// What NIO's HTTP decoder reads from `bytes`: each request's method, target and body
    /// length, and whether it refused the bytes after those.
    static func nioReads(_ bytes: [UInt8]) throws -> (requests: [Framed], refused: Bool) {
        let channel = EmbeddedChannel()
        defer { _ = try? channel.finish() }
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(HTTPRequestDecoder()))
        var buffer = channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        var refused = false
        do { try channel.writeInbound(buffer) } catch { refused = true }
        var requests: [Framed] = []
        while let part = try channel.readInbound(as: HTTPServerRequestPart.self) {
            switch part {
            case .head(let head): requests.append((head.method.rawValue, head.uri, 0, false))
            case .body(let body): requests[requests.count - 1].body += body.readableBytes
            case .end: break
            }
        }
        return (requests, refused)
    }

    /// A request head from a small grammar, sometimes with a body, then sometimes mutated (a
    /// byte changed, dropped or doubled) where framing bugs hide: line ends, lengths, names.
    static func request(_ random: inout SplitMix64) -> [UInt8] {
        let methods = ["GET", "HEAD", "POST", "get", "PUT", "OPTIONS"]
        let targets = [
            "/api/character/1", "/api/character/?page=2", "/", "/a%20b?x=1&y=", "*", "http://h/x", "/graphql",
            "/GraphQL/",
        ]
        let fields = [
            "Host: a", "Accept-Encoding: gzip", "If-None-Match: W/\"1\"", "Connection: keep-alive", "Connection: close",
            "Content-Length: 0", "Content-Length: 5", "content-length:  3 ", "Transfer-Encoding: chunked",
            "Expect: 100-continue", "Upgrade: h2c", "X-A: b\tc", "traceparent: 00-ab-cd-01", "Content-Length: 05",
            "Content-Type: application/json", "Accept: */*",
        ]
        let version = pick(&random, ["HTTP/1.1", "HTTP/1.1", "HTTP/1.0", "HTTP/1.2"])
        var text = "\(pick(&random, methods)) \(pick(&random, targets)) \(version)\r\n"
        var length = 0
        for _ in 0..<below(&random, 5) {
            let field = pick(&random, fields)
            if field.lowercased().hasPrefix("content-length") {
                length = Int(field.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
            text += field + "\r\n"
        }
        text += "\r\n"
        var bytes = Array(text.utf8) + Array(repeating: UInt8(ascii: "x"), count: length)
        if below(&random, 3) == 0, !bytes.isEmpty {
            let at = below(&random, bytes.count)
            switch below(&random, 4) {
            case 0: bytes[at] = pick(&random, Array("\r\n :\t0a\u{7F}".utf8) + [0, 0x80])
            case 1: bytes.remove(at: at)
            case 2: bytes.insert(bytes[at], at: at)
            default: bytes.insert(contentsOf: Array("\r\n".utf8), at: at)
            }
        }
        return bytes
    }
}

private func below(_ random: inout SplitMix64, _ bound: Int) -> Int { Int.random(in: 0..<bound, using: &random) }

private func pick<T>(_ random: inout SplitMix64, _ items: [T]) -> T { items[below(&random, items.count)] }
