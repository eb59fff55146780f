import GraphQL
import NIOCore

/// One entry of an answer's object, as execution will write it: the response key (an alias or
/// the field's name), the field, its arguments with the variables put in, and the entries of
/// the object it returns. Planned once for the whole query before anything is read
/// (``ExecutionPlan``): the schema has no interfaces or unions, so every object's type is known
/// from the document alone.
final class PlannedField: Sendable {
    /// The response key.
    let key: String
    /// `"key":`, escaped once for every record that writes it.
    let keyJSON: [UInt8]
    /// The schema's name of the field (`__typename` too).
    let name: String
    /// The field's nodes in the document, merged under one key (the errors' `locations`).
    let nodes: [Field]
    /// The arguments, variables put in; an argument not given is absent.
    let arguments: [String: InputValues.Value]
    /// The returned object's entries; empty for a scalar.
    let selections: [PlannedField]

    init(key: String, name: String, nodes: [Field], arguments: [String: InputValues.Value], selections: [PlannedField])
    {
        self.key = key
        var buffer = ByteBuffer()
        GraphQLResponseBody.writeString(key, into: &buffer)
        buffer.writeStaticString(":")
        keyJSON = Array(buffer.readableBytesView)
        self.name = name
        self.nodes = nodes
        self.arguments = arguments
        self.selections = selections
    }
}
