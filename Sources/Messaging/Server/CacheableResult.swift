import Logging
import NIOCore

/// A result and how long it may be answered again as it is (nil: not at all).
public struct CacheableResult: Sendable {
    public var json: ByteBuffer
    public var validUntil: ContinuousClock.Instant?

    public init(json: ByteBuffer, validUntil: ContinuousClock.Instant?) {
        self.json = json
        self.validUntil = validUntil
    }
}
