import RnmAPI
import Messaging
import ServiceKit

/// What can go wrong serving characters; mapped to wire codes here and nowhere else.
enum CharacterError: Error, RPCErrorConvertible {
    /// A sync ended without every record of a list: the previous mirror stays in force.
    case mirrorIncomplete(String)
    case invalidParams(String)
    case notFound(RecordKind, id: Int)
    case noAvatar(id: Int)
    case upstreamUnavailable(what: String, UpstreamError)
    /// A sync could not fetch a page (the cache and the previous mirror stay).
    case syncStopped(at: String, UpstreamError)

    func rpcError(service: String) -> RPCError {
        switch self {
        case .invalidParams(let message):
            RPCError(.invalidParams, "invalid params: \(message)", service: service)
        case .notFound(let resource, let id):
            RPCError(.notFound, "\(resource.rawValue) \(id) not found", service: service)
        case .noAvatar(let id):
            RPCError(.notFound, "character \(id) has no avatar", service: service)
        case .mirrorIncomplete(let what):
            RPCError(
                .upstreamUnavailable,
                "the sync did not get everything (\(what)); \(UpstreamError.mirrorStays)",
                service: service)
        case .syncStopped(let what, let error):
            error.syncStopped(at: what, service: service)
        case .upstreamUnavailable(let what, let error):
            RPCError(
                .upstreamUnavailable, "cannot fetch \(what) and nothing is cached: \(error)", service: service,
                upstreamStatus: error.httpStatus)
        }
    }
}
