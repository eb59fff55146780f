import Messaging
import ServiceKit

/// What can go wrong serving universities; mapped to wire codes here and nowhere else.
enum UniversityError: Error, RPCErrorConvertible {
    case invalidParams(String)
    /// `elsewhere`: a cached country that has a university of that exact name.
    case notFound(name: String, country: String, closest: [String], elsewhere: String?)
    /// `defaulted`: no country was given; `country` is the default one.
    case upstreamUnavailable(country: String, UpstreamError, defaulted: Bool = false)
    /// The sync could not fetch the world list (the cache and the previous mirror stay).
    case syncStopped(UpstreamError)

    func rpcError(service: String) -> RPCError {
        switch self {
        case .invalidParams(let message):
            return RPCError(.invalidParams, "invalid params: \(message)", service: service)
        case .notFound(let name, let country, let closest, let elsewhere):
            if let elsewhere {
                return RPCError(
                    .notFound,
                    """
                    no university named \"\(RPCError.excerpt(name))\" in \(RPCError.excerpt(country)); there is \
                    one in \(elsewhere): ask again with country \"\(elsewhere)\"
                    """,
                    service: service, detail: elsewhere)
            }
            let hint =
                closest.isEmpty ? "" : "; closest matches: " + closest.map { "\"\($0)\"" }.joined(separator: ", ")
            return RPCError(
                .notFound, "no university named \"\(RPCError.excerpt(name))\" in \(RPCError.excerpt(country))\(hint)",
                service: service,
                detail: closest.isEmpty ? nil : closest.joined(separator: "\n"))
        case .syncStopped(let error):
            return error.syncStopped(at: "the world list", service: service)
        case .upstreamUnavailable(let country, let error, let defaulted):
            // A country nobody typed is named as the default, with the way to need none.
            let which = defaulted ? " (the default country: none was given)" : ""
            let hint =
                defaulted
                ? "; once the upstream answers, `universities sync` keeps every country for offline use" : ""
            return RPCError(
                .upstreamUnavailable,
                "cannot fetch the universities of \(RPCError.excerpt(country))\(which) and none are cached: \(error)"
                    + hint,
                service: service, upstreamStatus: error.httpStatus)
        }
    }
}
