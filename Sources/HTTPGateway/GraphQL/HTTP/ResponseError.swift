import GraphQL

/// A GraphQL error as an answer carries it: `path` only on an error raised at a field, as the
/// spec says and the API's own server answers. The GraphQL library writes an empty `path` on
/// every error, a parse or validation error's too.
struct ResponseError: Encodable {
    let error: GraphQLError

    private enum CodingKeys: String, CodingKey {
        case message, locations, path, extensions
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(error.message, forKey: .message)
        if !error.locations.isEmpty { try container.encode(error.locations, forKey: .locations) }
        if !error.path.elements.isEmpty { try container.encode(error.path, forKey: .path) }
        if !error.extensions.isEmpty { try container.encode(error.extensions, forKey: .extensions) }
    }
}
