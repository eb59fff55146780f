import Foundation
import TestSupport

/// A GraphQL answer as a client reads it.
struct GraphQLAnswer: @unchecked Sendable {  // immutable; its JSON is only read
    let response: HTTPProbeResponse
    let object: [String: Any]

    var status: Int { response.status }
    var data: [String: Any]? { object["data"] as? [String: Any] }
    var errors: [[String: Any]] { object["errors"] as? [[String: Any]] ?? [] }
    var messages: [String] { errors.compactMap { $0["message"] as? String } }
    var rnm: [String: Any]? { (object["extensions"] as? [String: Any])?["rnm"] as? [String: Any] }
    /// The Gateway calls the query made (`extensions.rnm.calls`).
    var calls: Int? { rnm?["calls"] as? Int }
}

extension RunningHTTPGateway {
    /// `POST /graphql` with `application/json`, as Apollo and most clients send it.
    func graphQL(
        _ query: String, variables: [String: Any]? = nil, operationName: String? = nil,
        headers: [(String, String)] = []
    ) async throws -> GraphQLAnswer {
        var request: [String: Any] = ["query": query]
        if let variables { request["variables"] = variables }
        if let operationName { request["operationName"] = operationName }
        let body = try JSONSerialization.data(withJSONObject: request)
        let response = try await get(
            "/graphql", method: "POST", headers: [("Content-Type", "application/json")] + headers, body: Array(body))
        return GraphQLAnswer(response: response, object: Self.object(response))
    }

    /// `GET /graphql?query=…`.
    func graphQLGet(_ query: String, extra: String = "", headers: [(String, String)] = []) async throws -> GraphQLAnswer
    {
        let encoded = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let response = try await get("/graphql?query=\(encoded)\(extra)", headers: headers)
        return GraphQLAnswer(response: response, object: Self.object(response))
    }

    private static func object(_ response: HTTPProbeResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
    }
}

/// `value[key]` down a path of keys and indexes: `path(data, "characters", "results", 0, "name")`.
func path(_ value: Any?, _ steps: Any...) -> Any? {
    var current = value
    for step in steps {
        if let key = step as? String {
            current = (current as? [String: Any])?[key]
        } else if let index = step as? Int, let array = current as? [Any], array.indices.contains(index) {
            current = array[index]
        } else {
            return nil
        }
    }
    return current
}
