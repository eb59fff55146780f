import Messaging
import ServiceKit

/// What can go wrong serving universities; mapped to wire codes here and nowhere else.
enum UniversityError: Error, RPCErrorConvertible {
    case invalidParams(String)
    case notFound(name: String, country: String, closest: [String])
    case upstreamUnavailable(country: String, UpstreamError)

    func rpcError(service: String) -> RPCError {
        switch self {
        case .invalidParams(let message):
            return RPCError(.invalidParams, "invalid params: \(message)", service: service)
        case .notFound(let name, let country, let closest):
            let hint = closest.isEmpty ? "" : "; closest matches: " + closest.map { "\"\($0)\"" }.joined(separator: ", ")
            return RPCError(.notFound, "no university named \"\(name)\" in \(country)\(hint)", service: service,
                            detail: closest.isEmpty ? nil : closest.joined(separator: "\n"))
        case .upstreamUnavailable(let country, let error):
            return RPCError(.upstreamUnavailable, "cannot fetch the universities of \(country) and none are cached: \(error)",
                            service: service, upstreamStatus: error.httpStatus)
        }
    }
}
