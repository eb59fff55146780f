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
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

/// libFuzzer's entry point: one input, run through everything that reads client bytes.
///
/// - The whole input as one frame payload: ``Envelope`` parsing, and for a request, the
///   id splice the Gateway does.
/// - The input as a byte stream, cut into two writes at a point the first byte picks: the
///   ``FrameDecoder`` (limit 4 KiB), then each frame it yields through ``Envelope``.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMessaging(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start.map(UnsafeRawPointer.init), count: count)
    let payload = ByteBuffer(bytes: bytes)
    parse(payload)

    let channel = EmbeddedChannel(handler: ByteToMessageHandler(FrameDecoder(maxFrameBytes: 4096)))
    let cut = count > 0 ? Int(bytes[0]) % (count + 1) : 0
    for chunk in [payload.getSlice(at: 0, length: cut)!, payload.getSlice(at: cut, length: count - cut)!] {
        do {
            try channel.writeInbound(chunk)
        } catch {
            break  // a bad header: the decoder refuses the rest of the stream
        }
        while let frame = try? channel.readInbound(as: ByteBuffer.self) {
            parse(frame)
        }
    }
    _ = try? channel.finish()
    return 0
}

private func parse(_ payload: ByteBuffer) {
    guard let envelope = try? Envelope(parsing: payload) else { return }
    _ = envelope.method
    _ = envelope.idDescription
    if let idRange = envelope.idRange {
        let relabelled = envelope.frame(replacing: idRange, with: ByteBuffer(string: "42"))
        _ = try? Envelope(parsing: relabelled.getSlice(at: FrameDecoder.headerSize, length: relabelled.readableBytes - FrameDecoder.headerSize)!)
    }
}
