import NIOCore

/// How much of a connection one turn of its event loop reads: 128 bytes (one small request and
/// the start of the next) of a client that may not read its replies, so that a newcomer's
/// request waits a turn or two and not behind everything hundreds of pipelining connections
/// have sent (issue 35, finding 7; Redis reads 16 KB a client a turn). A newcomer's call takes
/// about four turns (accept, read, the service's reply, write), and a turn reads every flooding
/// connection once. Measured with 400 connections flooding the Gateway with 1,000
/// `universities.list` each (release build, `scripts/attack --only wire`), a newcomer's p99:
/// 204 ms with 1 KB turns, 95 ms with 256 bytes, 57 ms with 128; 64 bytes (a request in two
/// reads) was no better. A client that waits for each reply is read in one `read` a request (two
/// for a frame over 128 bytes); a pipelining one pays a `read` per frame or two.
///
/// A frame larger than a turn is read in turns its size (up to 64 KB): one request's bytes, so
/// no more work a turn, and its frame timeout is not spent waiting for our small reads. A
/// relay of many clients that reads every reply (the HTTP front) is read in NIO's full turns.
/// Used on the connection's event loop only.
public final class ReadTurns: @unchecked Sendable {
    /// Bytes read in one turn.
    public static let bytes = 128
    /// The most one turn reads for a large frame.
    static let largestTurn = 65_536

    private var full = false
    private var widened = false

    public init() {}

    /// The channel options of a connection read in small turns.
    public static func configure(_ options: NIOSynchronousChannelOptions) throws {
        try options.setOption(.maxMessagesPerRead, value: 1)
        try options.setOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: bytes))
    }

    /// A frame is `missing` bytes short: read it in turns of its size (no more: the frames after
    /// it wait for their own turn).
    func frameNeeds(_ missing: Int, channel: any Channel) {
        guard !full, missing > Self.bytes else { return frameDone(channel: channel) }
        widened = true
        let capacity = min(missing, Self.largestTurn)
        try? channel.syncOptions?.setOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: capacity))
    }

    /// A frame is complete: small turns again.
    func frameDone(channel: any Channel) {
        guard !full, widened else { return }
        widened = false
        try? channel.syncOptions?.setOption(
            .recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.bytes))
    }

    /// NIO's own turns from now on (up to 4 reads of up to 64 KB), for a relay that reads every
    /// reply (`full`); small turns again when it says it no longer is one.
    func readInFullTurns(_ full: Bool, channel: any Channel) {
        self.full = full
        widened = false
        guard full else {
            if let options = channel.syncOptions { try? Self.configure(options) }
            return
        }
        try? channel.syncOptions?.setOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator())
        try? channel.syncOptions?.setOption(.maxMessagesPerRead, value: 4)
    }
}
