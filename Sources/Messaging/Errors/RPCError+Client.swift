/// The failures both clients (``RPCClient`` on an event loop, ``SerialRPCClient`` on the calling
/// thread) report, worded once.
extension RPCError {
    /// -32003: nothing answers at `socketPath`.
    static func cannotConnect(to service: String, at socketPath: String, reason: String) -> RPCError {
        RPCError(.serviceUnavailable, "cannot connect to \(service) at \(socketPath): \(reason)", service: service)
    }

    /// -32004: `service` did not answer within the request's deadline.
    public static func timedOut(_ service: String, milliseconds: Int64) -> RPCError {
        RPCError(.timeout, "\(service) did not answer within \(milliseconds) ms", service: service)
    }
}
