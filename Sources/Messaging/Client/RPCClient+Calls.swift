import Logging
import NIOCore
import Telemetry

/// The calls: a method and its params in, its reply out (the typed ones are ``RPCCaller``'s).
extension RPCClient: RPCCaller {
    /// Calls `method` with raw `params` JSON; returns the reply envelope. The frame carries the
    /// current task's trace id (``RequestTrace/current``) and client (``RequestClient/current``),
    /// if it has them.
    public func call(
        method: String, params: ByteBuffer?, timeout: Duration?, onProgress: ProgressHandler? = nil
    ) async throws -> Envelope {
        let trace = RequestTrace.current
        let client = RequestClient.current
        return try await send(timeout: timeout, onProgress: onProgress) { id in
            Frames.request(id: id, method: method, params: params, trace: trace, client: client)
        }
    }

    /// A reply's `result` JSON, or its error thrown as an ``RPCError``.
    public static func result(of reply: Envelope, service: String) throws -> ByteBuffer {
        if let error = reply.error {
            throw (try? JSONCoding.decode(RPCError.self, from: error))
                ?? RPCError(.internalError, "unreadable error reply", service: service, detail: String(buffer: error))
        }
        guard let result = reply.result else {
            throw RPCError(.internalError, "reply has no result", service: service)
        }
        return result
    }
}
