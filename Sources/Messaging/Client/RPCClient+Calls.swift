import Logging
import NIOCore
import Telemetry

/// The typed calls: a method and its params in, its decoded result (or its error) out.
extension RPCClient {
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

    /// Calls a typed method and decodes its result.
    /// - Throws: the reply's ``RPCError`` when it is an error.
    public func call<P, R>(
        _ method: RPCMethod<P, R>, _ params: P, timeout: Duration? = .seconds(30),
        onProgress: (@Sendable (ProgressUpdate) -> Void)? = nil
    ) async throws -> R {
        try await callReturningJSON(method, params, timeout: timeout, onProgress: onProgress).value
    }

    /// Calls a typed method; returns its decoded result and the result's JSON as received
    /// (for a caller that prints it as it came). This is the one typed call: ``call(_:_:timeout:onProgress:)``
    /// is this without the JSON.
    /// - Throws: the reply's ``RPCError`` when it is an error.
    public func callReturningJSON<P, R>(
        _ method: RPCMethod<P, R>, _ params: P, timeout: Duration? = .seconds(30),
        onProgress: (@Sendable (ProgressUpdate) -> Void)? = nil
    ) async throws -> (value: R, json: ByteBuffer) {
        var progress: ProgressHandler?
        if let onProgress {
            progress = { envelope in
                guard let params = envelope.params,
                    let update = try? JSONCoding.decode(ProgressUpdate.self, from: params)
                else { return }
                onProgress(update)
            }
        }
        let reply = try await call(
            method: method.name, params: try JSONCoding.encode(params), timeout: timeout, onProgress: progress)
        let json = try Self.result(of: reply, service: service)
        return (try JSONCoding.decode(R.self, from: json), json)
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
