import NIOCore

/// The `data` of an answer, written as the query is resolved: each record's entries straight
/// into the buffer that is sent, in the order the query asks for them, JSON as
/// ``GraphQLResponseBody`` writes the library's results (byte for byte the same answer).
struct AnswerWriter {
    let context: QueryContext
    private(set) var buffer = ByteBuffer()

    init(context: QueryContext) {
        self.context = context
    }

    mutating func null() {
        buffer.writeStaticString("null")
    }

    mutating func string(_ value: String?) {
        guard let value else { return null() }
        GraphQLResponseBody.writeString(value, into: &buffer)
    }

    mutating func int(_ value: Int?) {
        guard let value else { return null() }
        buffer.writeString(String(value))
    }

    mutating func id(_ value: GraphQLIDValue?) {
        string(value?.text)
    }

    /// An object with the entries `planned` asks for, or null.
    mutating func object<Object: GraphQLObject>(_ object: Object?, _ planned: [PlannedField]) async {
        guard let object else { return null() }
        buffer.writeStaticString("{")
        for (index, field) in planned.enumerated() {
            if index > 0 { buffer.writeStaticString(",") }
            buffer.writeBytes(field.keyJSON)
            if field.name == "__typename" {
                string(Object.typeName)
            } else if let resolved = Object.Field(rawValue: field.name) {
                await resolved.write(of: object, field, into: &self)
            } else {
                // Not reached: the plan holds only the schema's fields, and the schema is built
                // from these cases.
                null()
            }
        }
        buffer.writeStaticString("}")
    }

    /// A list of objects, each with the entries `planned` asks for.
    mutating func list<Object: GraphQLObject>(_ objects: [Object?]?, _ planned: [PlannedField]) async {
        guard let objects else { return null() }
        buffer.writeStaticString("[")
        for (index, object) in objects.enumerated() {
            if index > 0 { buffer.writeStaticString(",") }
            await self.object(object, planned)
        }
        buffer.writeStaticString("]")
    }
}
