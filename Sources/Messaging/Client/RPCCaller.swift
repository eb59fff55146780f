import NIOCore

/// What sends a request and waits for its reply: ``RPCClient`` (any number in flight, on an
/// event loop) and ``SerialRPCClient`` (one at a time, on the calling thread). The typed calls
/// are written once, here.
public protocol RPCCaller: Sendable {
    /// The service on the other end, named in errors.
    var service: String { get }

    /// Calls `method` with raw `params` JSON; returns the reply envelope. The frame carries the
    /// current task's trace id (``RequestTrace/current``) and client (``RequestClient/current``),
    /// if it has them.
    /// - Parameters:
    ///   - timeout: the deadline, restarted by each progress notification; nil for none.
    ///   - onProgress: receives this request's progress notifications.
    /// - Throws: ``RPCError`` -32003 if the connection is or goes down, -32004 on the deadline.
    func call(
        method: String, params: ByteBuffer?, timeout: Duration?, onProgress: RPCClient.ProgressHandler?
    ) async throws -> Envelope
}

extension RPCCaller {
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
        var progress: RPCClient.ProgressHandler?
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
        let json = try RPCClient.result(of: reply, service: service)
        return (try JSONCoding.decode(R.self, from: json), json)
    }
}
