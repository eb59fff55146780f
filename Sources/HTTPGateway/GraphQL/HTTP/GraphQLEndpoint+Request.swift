#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import GraphQL
import Hummingbird
import NIOCore

/// Reading a GraphQL request over HTTP (GraphQL over HTTP's two forms), before anything runs.
extension GraphQLEndpoint {
    /// A request refused as read: its error and the status it is answered with.
    struct Refusal: Error {
        let error: GraphQLError
        let status: HTTPResponse.Status
    }

    /// The request's `query`, `variables` and `operationName`, from the query string (GET) or a
    /// JSON body (POST), within the size limit; and the request as sent (``SentRequestKey``).
    func read(_ request: inout Request) async -> Result<(GraphQLRequest, sentKey: String?), Refusal> {
        let head = request.head
        let sent = { (body: ByteBuffer?) in
            (body ?? ByteBuffer()).withUnsafeReadableBytes { body in
                SentRequestKey.of(
                    head.method, target: head.path ?? "", accept: head.headerFields[.accept],
                    contentType: head.headerFields[.contentType], body: body)
            }
        }
        let tooLarge = Refusal(
            error: GraphQLLimits.exceeded(
                "the request is over \(limits.maxQueryBytes) bytes (RNM_GRAPHQL_MAX_QUERY_BYTES)"),
            status: .contentTooLarge)
        if request.method == .get || request.method == .head {
            let query = PublicQuery(request.uri.query)
            guard (request.uri.query?.utf8.count ?? 0) <= limits.maxQueryBytes else { return .failure(tooLarge) }
            guard let text = query["query"], !text.isEmpty else {
                return .failure(Self.badRequest("give the query in the `query` parameter"))
            }
            var variables: [String: Map] = [:]
            if let json = query["variables"], !json.isEmpty {
                guard let decoded = try? JSONDecoder().decode([String: Map].self, from: Data(json.utf8)) else {
                    return .failure(Self.badRequest("`variables` is not a JSON object"))
                }
                variables = decoded
            }
            let read = GraphQLRequest(query: text, operationName: query["operationName"], variables: variables)
            return .success((read, sent(nil)))
        }
        let mediaType = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
        guard mediaType?.lowercased() == "application/json" else {
            return .failure(
                Refusal(
                    error: GraphQLError(message: "send the request as application/json"),
                    status: .unsupportedMediaType))
        }
        let bytes: ByteBuffer
        do {
            bytes = try await request.collectBody(upTo: limits.maxQueryBytes)
        } catch {
            return .failure(tooLarge)
        }
        do {
            return .success((try JSONDecoder().decode(GraphQLRequest.self, from: Data(buffer: bytes)), sent(bytes)))
        } catch {
            return .failure(Self.badRequest("the body is not a GraphQL request: a JSON object with a string `query`"))
        }
    }

    static func badRequest(_ message: String) -> Refusal {
        Refusal(error: GraphQLError(message: message), status: .badRequest)
    }
}
