import Messaging
import NIOCore
import NIOEmbedded

/// SwiftPM links an executable's entry point as `<module>_main`; hand control to libFuzzer.
@_cdecl("FuzzMessaging_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzMessaging(data, size) }
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// libFuzzer's entry point: one input, run through everything that reads client bytes.
///
/// - The whole input as one frame payload: ``Envelope`` parsing, and the Gateway's
///   forwarding path (``forward(_:)``).
/// - The input as a byte stream, cut into two writes at a point the first byte picks: the
///   ``FrameDecoder`` (limit 4 KiB), then each frame it yields through the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMessaging(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start.map(UnsafeRawPointer.init), count: count)
    let payload = ByteBuffer(bytes: bytes)
    forward(payload)

    let channel = EmbeddedChannel(handler: ByteToMessageHandler(FrameDecoder(maxFrameBytes: 4096)))
    let cut = count > 0 ? Int(bytes[0]) % (count + 1) : 0
    for chunk in [payload.getSlice(at: 0, length: cut)!, payload.getSlice(at: cut, length: count - cut)!] {
        do {
            try channel.writeInbound(chunk)
        } catch {
            break  // a bad header: the decoder refuses the rest of the stream
        }
        while let frame = try? channel.readInbound(as: ByteBuffer.self) {
            forward(frame)
        }
    }
    _ = try? channel.finish()
    return 0
}

/// The Gateway's forwarding path on one payload, with ids of every length and frame limits
/// around the payload's size. Any broken invariant crashes, which libFuzzer reports:
/// - a frame is sent only if it is within the limit, and then it parses, carries the new id,
///   and keeps the method and params byte for byte;
/// - a reply re-labelled with the client's id (any length) parses and carries that id.
private func forward(_ payload: ByteBuffer) {
    // The fast path for canonical replies agrees with the full reading wherever both answer.
    if let fast = Envelope.canonicalResponse(payload), let full = try? Envelope(parsing: payload) {
        guard fast.kind == full.kind, fast.idRange == full.idRange, fast.resultRange == full.resultRange else {
            preconditionFailure("the canonical reading of a reply differs from the full one")
        }
    }
    guard let envelope = try? Envelope(parsing: payload) else { return }
    _ = envelope.idDescription
    let size = payload.readableBytes
    for digits in [1, 2, 9, 10, 19] {
        let id = digits == 19 ? Int64.max : Int64(pow10(digits - 1))
        let frame = envelope.frame(withID: ByteBuffer(string: String(id)))
        let forwardedSize = frame.readableBytes - FrameDecoder.headerSize
        for limit in max(1, size - 2)...(size + 24) {
            let fits = (try? FrameTooLargeError.check(frame, maxFrameBytes: limit, what: "fuzz")) != nil
            precondition(fits == (forwardedSize <= limit), "the size check disagrees with the frame's size")
        }
        guard envelope.kind != .response else { continue }
        let sent = payloadOf(frame)
        guard let parsed = try? Envelope(parsing: sent) else { preconditionFailure("a forwarded frame does not parse") }
        precondition(parsed.integerID == id, "the forwarded frame does not carry the Gateway's id")
        precondition(parsed.method == envelope.method, "forwarding changed the method")
        precondition(parsed.params == envelope.params, "forwarding changed the params")
    }
    if envelope.kind == .response, let idRange = envelope.idRange {
        for length in [0, 1, 7, 64, 300] {
            let clientID = ByteBuffer(string: "\"" + String(repeating: "k", count: length) + "\"")
            let back = payloadOf(envelope.frame(replacing: idRange, with: clientID))
            guard let parsed = try? Envelope(parsing: back) else {
                preconditionFailure("a re-labelled reply does not parse")
            }
            precondition(parsed.rawID == clientID, "the reply does not carry the client's id")
        }
    }
}

private func payloadOf(_ frame: ByteBuffer) -> ByteBuffer {
    frame.getSlice(
        at: frame.readerIndex + FrameDecoder.headerSize, length: frame.readableBytes - FrameDecoder.headerSize)!
}

private func pow10(_ exponent: Int) -> Int {
    (0..<exponent).reduce(1) { value, _ in value * 10 }
}
