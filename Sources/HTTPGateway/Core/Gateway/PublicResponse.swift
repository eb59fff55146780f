#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HTTPTypes
import Hummingbird
import Logging
import Messaging
import NIOCore
import RnmAPI

/// Every response the HTTPGateway sends: JSON bodies as the public APIs send them, errors as
/// `{"error": "…"}`, and where a body came from in standard headers (RFC 9211 `Cache-Status`,
/// `Age`).
enum PublicResponse {
    static let cacheStatus = HTTPField.Name("Cache-Status")!

    /// A JSON body with the headers of `freshness`.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok, freshness: Freshness? = nil) -> Response {
        body(value.bytes, contentType: "application/json; charset=utf-8", status: status, freshness: freshness)
    }

    /// Bytes with their content type and the headers of `freshness`.
    static func body(
        _ bytes: ByteBuffer, contentType: String, status: HTTPResponse.Status = .ok, freshness: Freshness? = nil
    ) -> Response {
        var headers: HTTPFields = [.contentType: contentType]
        if let freshness { headers.append(contentsOf: freshnessHeaders(freshness)) }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: bytes))
    }

    /// `{"error": message}`, as the Rick and Morty API words its errors.
    static func error(_ message: String, status: HTTPResponse.Status, headers: HTTPFields = [:]) -> Response {
        var response = body(errorBody(message), contentType: "application/json; charset=utf-8", status: status)
        response.headers.append(contentsOf: headers)
        return response
    }

    /// The bytes of `{"error": message}`: also for answers written below the router (a refused
    /// connection, a request that cannot be parsed).
    static func errorBody(_ message: String) -> ByteBuffer {
        JSONValue.object([("error", .string(message))]).bytes
    }

    /// A failure of rnm itself as a response (``describe(_:)``), logged.
    static func failure(_ error: any Error, logger: Logger) -> Response {
        if let error = error as? RPCError {
            logger.notice(
                "request failed",
                metadata: ["code": "\(error.code)", "service": "\(error.service)", "error": "\(error.message)"])
        } else {
            logger.error("request failed", metadata: ["error": "\(error)"])
        }
        let (message, status, headers) = describe(error)
        return self.error(message, status: status, headers: headers)
    }

    /// A failure of rnm itself, mapped to HTTP in this one place (REST and GraphQL answers): a
    /// process away or overloaded → 503 with `Retry-After`; the upstream down with nothing
    /// cached → 502; too slow → 504; a parameter rnm refuses → 400. The messages are written for
    /// the API's clients: socket paths and internal errors stay in the log.
    static func describe(_ error: any Error) -> (message: String, status: HTTPResponse.Status, headers: HTTPFields) {
        guard let error = error as? RPCError else { return ("internal error", .internalServerError, [:]) }
        switch error.code {
        case .serviceUnavailable:
            // Named, so that whoever reads it knows what to start again.
            let what =
                switch ServiceName(rawValue: error.service) {
                case .gateway: "its Gateway is"
                case .some(let service): "its \(service.rawValue) service is"
                case nil: "it is"
                }
            return (
                "rnm cannot answer now: \(what) not running; retry shortly", .serviceUnavailable, [.retryAfter: "1"]
            )
        case .overloaded:
            return ("rnm is overloaded; retry shortly", .serviceUnavailable, [.retryAfter: "1"])
        case .storageUnavailable:
            // A disk full or failing, or the favorites' database (RNM_FAVORITES_URL) not answering:
            // which one, and where, stays in the log.
            return (
                "rnm cannot store or read this now (its disk, or the database of its favorites, is failing); "
                    + "retry later", .serviceUnavailable, [:]
            )
        case .upstreamUnavailable:
            let status = error.upstreamStatus.map { " (it answered \($0))" } ?? ""
            return (
                "the upstream API is unavailable\(status) and rnm has nothing cached for this request", .badGateway, [:]
            )
        case .timeout, .cancelled:
            return ("rnm did not answer in time; retry shortly", .gatewayTimeout, [:])
        case .invalidParams:
            return (error.message.replacing("invalid params: ", with: ""), .badRequest, [:])
        case .notFound:
            return (error.message, .notFound, [:])
        default:
            return ("internal error", .internalServerError, [:])
        }
    }

    /// `Cache-Status: rnm; hit` for a fresh cached answer (`rnm; hit; detail="revalidating"` past
    /// its max age while a background refresh runs), `rnm; fwd=miss; stored` for one just
    /// fetched, `rnm; fwd=stale; detail="…"` when the upstream failed and the cache answered;
    /// `Age` in seconds since it was fetched.
    static func freshnessHeaders(_ freshness: Freshness, now: Date = Date()) -> HTTPFields {
        var headers = HTTPFields()
        switch (freshness.source, freshness.stale) {
        case (.upstream, _):
            headers[cacheStatus] = "rnm; fwd=miss; stored"
        case (.cache, false):
            headers[cacheStatus] = freshness.revalidating == true ? "rnm; hit; detail=\"revalidating\"" : "rnm; hit"
        case (.cache, true):
            headers[cacheStatus] =
                "rnm; fwd=stale; detail=\(quotedParameter(freshness.upstreamError ?? "the upstream failed"))"
        }
        if freshness.source == .upstream {
            // Fetched for this very request (`fetchedAt` is in whole seconds, truncated: the
            // difference to now could say 1 for an answer a millisecond old).
            headers[.age] = "0"
        } else if let fetched = freshness.fetchedDate {
            headers[.age] = String(max(0, Int(now.timeIntervalSince(fetched))))
        }
        return headers
    }

    /// A structured-field string (RFC 8941): printable ASCII, quotes and backslashes escaped.
    static func quotedParameter(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars.prefix(200) {
            switch scalar {
            case "\"", "\\": quoted += "\\\(scalar)"
            case " "..."~": quoted.unicodeScalars.append(scalar)
            default: quoted += "?"
            }
        }
        return quoted + "\""
    }
}
