/// A field that could not be resolved, in words for the API's clients. Thrown as this type (not
/// as a `GraphQLError`), the GraphQL library locates it: the error it answers carries the
/// field's `path` and `locations`, and this description as its message.
struct FieldError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
