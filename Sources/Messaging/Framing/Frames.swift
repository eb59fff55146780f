#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NIOCore

/// The frames this system writes, built directly as bytes so that `result` and `params`
/// JSON is spliced in as it is, never decoded and re-encoded.
public enum Frames {
    private static let nullID = ByteBuffer(string: "null")

    /// `{"jsonrpc":"2.0","id":<rawID>,"result":<result>}`.
    public static func response(rawID: ByteBuffer, result: ByteBuffer) -> ByteBuffer {
        var builder = FrameBuilder(capacity: result.readableBytes + rawID.readableBytes + 32)
        builder.append("{\"jsonrpc\":\"2.0\",\"id\":")
        builder.append(rawID)
        builder.append(",\"result\":")
        builder.append(result)
        builder.append("}")
        return builder.finish()
    }

    /// `{"jsonrpc":"2.0","id":<rawID or null>,"error":{...}}`.
    public static func errorResponse(rawID: ByteBuffer?, error: RPCError) -> ByteBuffer {
        var builder = FrameBuilder(capacity: 160)
        builder.append("{\"jsonrpc\":\"2.0\",\"id\":")
        builder.append(rawID ?? nullID)
        builder.append(",\"error\":")
        builder.append(error: error)
        builder.append("}")
        return builder.finish()
    }

    /// `{"jsonrpc":"2.0","id":<id>,"method":<method>,"trace":<trace>,"client":<client>,"params":<params>}`
    /// (no `trace` or `client` when nil).
    public static func request(
        id: Int64, method: String, params: ByteBuffer?, trace: String? = nil, client: String? = nil
    ) -> ByteBuffer {
        var builder = FrameBuilder(capacity: (params?.readableBytes ?? 0) + method.utf8.count + 96)
        builder.append("{\"jsonrpc\":\"2.0\",\"id\":")
        builder.appendInteger(id)
        builder.append(",\"method\":")
        builder.appendString(method)
        if let trace {
            builder.append(",\"trace\":")
            builder.appendString(trace)
        }
        if let client {
            builder.append(",\"client\":")
            builder.appendString(client)
        }
        if let params {
            builder.append(",\"params\":")
            builder.append(params)
        }
        builder.append("}")
        return builder.finish()
    }

    /// The notification a client sends when it gives up on a request (its deadline passed, its
    /// caller was cancelled): the server stops the work, which nobody is waiting for any more.
    public static let cancelMethod = "rpc.cancel"

    /// `{"jsonrpc":"2.0","method":"rpc.cancel","params":{"id":<id>}}`.
    public static func cancel(id: Int64) -> ByteBuffer {
        var builder = FrameBuilder(capacity: 64)
        builder.append("{\"jsonrpc\":\"2.0\",\"method\":\"rpc.cancel\",\"params\":{\"id\":")
        builder.appendInteger(id)
        builder.append("}}")
        return builder.finish()
    }

    /// A `progress` notification for the request whose id is `rawID`.
    public static func progress(rawID: ByteBuffer, done: Int, total: Int, message: String) -> ByteBuffer {
        var builder = FrameBuilder(capacity: 96 + message.utf8.count)
        builder.append("{\"jsonrpc\":\"2.0\",\"method\":\"progress\",\"params\":{\"id\":")
        builder.append(rawID)
        builder.append(",\"done\":")
        builder.appendInteger(done)
        builder.append(",\"total\":")
        builder.appendInteger(total)
        builder.append(",\"message\":")
        builder.appendString(message)
        builder.append("}}")
        return builder.finish()
    }
}
