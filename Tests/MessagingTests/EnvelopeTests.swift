import Messaging
import NIOCore
import Testing

extension ByteBuffer {
    /// The payload of a frame (its 4-byte length dropped).
    fileprivate func dropFrameHeader() -> ByteBuffer { getSlice(at: readerIndex + 4, length: readableBytes - 4)! }
}

@Suite("Envelope and JSON scanner")
struct EnvelopeTests {
    private func parse(_ text: String) throws(EnvelopeError) -> Envelope {
        try Envelope(parsing: ByteBuffer(string: text))
    }

    @Test("the Gateway's client member: replaced whatever its kind or place, inserted when absent, ids too")
    func clientMember() throws {
        let client = #""c7""#
        let id: Int64 = 42
        for text in [
            #"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}}"#,
            #"{"jsonrpc":"2.0","client":"c3","id":1,"method":"m"}"#,
            #"{"jsonrpc":"2.0","id":1,"client":0,"method":"m"}"#,
            #"{"client":"x","jsonrpc":"2.0","method":"m","client":[1]}"#,
        ] {
            let forwarded = try Envelope(parsing: try parse(text).frame(withID: id, client: client).dropFrameHeader())
            #expect(forwarded.client == "c7", "\(text)")
            #expect(forwarded.integerID == 42, "\(text)")
            #expect(forwarded.method == "m")
        }
        #expect(try parse(#"{"jsonrpc":"2.0","id":1,"method":"m","client":5}"#).client == nil)
    }

    @Test("a request exposes id and method; params stay raw bytes")
    func request() throws {
        let envelope = try parse(
            #"{"params": {"id": 1, "deep": [1, {"x": "}"}]}, "method": "characters.get", "jsonrpc": "2.0", "id": 7}"#)
        #expect(envelope.kind == .request)
        #expect(envelope.method == "characters.get")
        #expect(envelope.integerID == 7)
        #expect(envelope.params.map { String(buffer: $0) } == #"{"id": 1, "deep": [1, {"x": "}"}]}"#)
    }

    @Test("string ids and escaped keys are read; a request without id is a notification")
    func idsAndNotifications() throws {
        let envelope = try parse(#"{"jsonrpc":"2.0","id":"a\"b","\u006dethod":"x"}"#)
        #expect(envelope.rawID.map { String(buffer: $0) } == #""a\"b""#)
        #expect(envelope.method == "x")
        #expect(try parse(#"{"jsonrpc":"2.0","method":"x"}"#).kind == .notification)
    }

    @Test("responses carry result or error, and null ids are allowed only on error replies")
    func responses() throws {
        #expect(try parse(#"{"jsonrpc":"2.0","id":3,"result":{"a":1}}"#).kind == .response)
        #expect(try parse(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}"#).kind == .response)
    }

    @Test("re-labelling the id changes those bytes and nothing else")
    func relabel() throws {
        let text = #"{"jsonrpc":"2.0","id":"client-1","result":{"name":"Rick Sánchez","n":[1,2.5e3,null]}}"#
        let envelope = try parse(text)
        let frame = envelope.frame(replacing: envelope.idRange!, with: ByteBuffer(string: "42"))
        var payload = frame
        #expect(payload.readInteger(as: UInt32.self) == UInt32(payload.readableBytes))
        #expect(String(buffer: payload) == text.replacingOccurrences(of: #""client-1""#, with: "42"))
        let relabelled = try Envelope(parsing: payload)
        #expect(relabelled.integerID == 42)
        #expect(relabelled.result == envelope.result)
    }

    @Test("progress notifications expose the id of their request")
    func progressID() throws {
        let envelope = try parse(
            #"{"jsonrpc":"2.0","method":"progress","params":{"done":1,"id":"abc","total":2,"message":"m"}}"#)
        let range = try #require(envelope.progressRequestIDRange)
        #expect(String(buffer: envelope.slice(range)) == #""abc""#)
    }

    @Test(
        "not JSON, bad UTF-8, trailing bytes, deep nesting: parse errors",
        arguments: [
            "{", "nul", "{\"a\":1,}", "[1 2]", "{\"a\":01}", "\"\u{01}\"", "{} {}", "1.", "-", "\"\\x\"",
            String(repeating: "[", count: 200) + String(repeating: "]", count: 200),
        ])
    func notJSON(_ text: String) {
        #expect(throws: EnvelopeError.self) { try parse(text) }
        do {
            _ = try parse(text)
        } catch {
            guard case .notJSON = error else {
                Issue.record("expected notJSON for \(text), got \(error)")
                return
            }
        }
    }

    @Test(
        "invalid UTF-8 inside strings is rejected",
        arguments: [
            [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xE2, 0x82], [0xFF],
        ] as [[UInt8]])
    func invalidUTF8(_ bytes: [UInt8]) {
        var buffer = ByteBuffer(string: #"{"jsonrpc":"2.0","id":1,"method":""#)
        buffer.writeBytes(bytes)
        buffer.writeString(#""}"#)
        #expect(throws: EnvelopeError.self) { try Envelope(parsing: buffer) }
    }

    @Test("valid multi-byte UTF-8 is accepted")
    func validUTF8() throws {
        let envelope = try parse(#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"n":"Żółć 日本 🚀"}}"#)
        #expect(envelope.kind == .request)
    }

    @Test(
        "JSON that is not a JSON-RPC request is -32600",
        arguments: [
            #"[{"jsonrpc":"2.0","id":1,"method":"x"}]"#,  // batch
            #"42"#,
            #"{"jsonrpc":"2.0","id":1}"#,  // no method
            #"{"jsonrpc":"1.0","id":1,"method":"x"}"#,
            #"{"id":1,"method":"x"}"#,
            #"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#,
            #"{"jsonrpc":"2.0","id":{},"method":"x"}"#,
            #"{"jsonrpc":"2.0","id":1,"method":7}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}"#,
        ])
    func invalidRequests(_ text: String) {
        do {
            _ = try parse(text)
            Issue.record("accepted \(text)")
        } catch {
            guard case .invalid = error else {
                Issue.record("expected invalid for \(text), got \(error)")
                return
            }
            #expect(RPCError(mapping: error, service: "t").code == .invalidRequest)
        }
    }

    @Test("errors map to the wire table in one place, with retryability")
    func errorMapping() throws {
        #expect(RPCError(.upstreamUnavailable, "x", service: "characters").retryable)
        #expect(!RPCError(.notFound, "x", service: "characters").retryable)
        struct Unknown: Error {}
        #expect(RPCError(mapping: Unknown(), service: "s").code == .internalError)
        let json = RPCError(.timeout, "slow", service: "gateway").json
        #expect(
            json.contains(#""retryable":true"#) && json.contains(#""service":"gateway""#) && json.contains("-32004"))
    }
}

extension EnvelopeTests {
    @Test("an error frame, written by hand, reads back as the error it was, whatever its text holds")
    func errorWireForm() throws {
        let errors = [
            RPCError(.notFound, "no character 9", service: "characters"),
            RPCError(
                .upstreamUnavailable, "the upstream said \"no\"\n\tand \u{1} left; Морти, 🛸",
                service: "characters", detail: "a\\b / c", upstreamStatus: 503),
            RPCError(.init(rawValue: 0), "", service: ""),
        ]
        for error in errors {
            struct ErrorFrame: Decodable {
                let jsonrpc: String
                let id: Int
                let error: RPCError
            }
            let frame = Frames.errorResponse(rawID: ByteBuffer(string: "7"), error: error).dropFrameHeader()
            let read = try JSONCoding.decode(ErrorFrame.self, from: frame)
            #expect(read.error == error && read.id == 7 && read.jsonrpc == "2.0")
        }
        #expect(
            errors[0].json
                == #"{"code":-32001,"data":{"retryable":false,"service":"characters"},"message":"no character 9"}"#)
    }
}

extension EnvelopeTests {
    @Test(
        """
        a reply in Frames.response's layout is located from its ends, as the full reading locates it; anything else \
        is left to it
        """
    )
    func canonicalResponses() throws {
        for (id, result) in [
            ("1", "{}"), ("42", #"{"a":[1,2,{"b":"}"}],"c":null}"#), ("123456789012345678", "[1]"), ("7", #""text""#),
        ] {
            var frame = Frames.response(rawID: ByteBuffer(string: id), result: ByteBuffer(string: result))
            frame.moveReaderIndex(forwardBy: FrameDecoder.headerSize)
            let fast = try #require(Envelope.canonicalResponse(frame))
            let full = try Envelope(parsing: frame)
            #expect(fast.kind == .response && fast.idRange == full.idRange && fast.resultRange == full.resultRange)
            #expect(String(buffer: fast.result!) == result && fast.integerID == Int64(id))
        }
        for text in [
            #"{"jsonrpc":"2.0","id":"a","result":1}"#, #"{"jsonrpc":"2.0","id":07,"result":1}"#,
            #"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}"#, #"{ "jsonrpc":"2.0","id":1,"result":1}"#,
            #"{"jsonrpc":"2.0","id":1,"result":}"#, #"{"jsonrpc":"2.0","id":1234567890123456789,"result":1}"#,
            #"{"jsonrpc":"2.0","id":1,"result":1"#,
        ] {
            #expect(Envelope.canonicalResponse(ByteBuffer(string: text)) == nil, "\(text)")
        }
    }
}
