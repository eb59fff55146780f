import Logging
import NIOCore

/// What a handler answers.
public enum RPCReply: Sendable {
    /// The `result` JSON; the server wraps it in a response with the request's id.
    case result(ByteBuffer)
    /// A complete reply frame, already carrying the request's id (forwarded replies), and its
    /// error's code when it is an error reply (for metrics).
    case frame(ByteBuffer, errorCode: RPCError.Code? = nil)
    /// No reply (a forwarded notification).
    case none
}
