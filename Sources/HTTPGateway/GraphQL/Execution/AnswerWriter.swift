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
        await self.object(object, planned, fields: Self.fields(Object.self, planned))
    }

    /// `planned`'s fields of `Object`, looked up by name once for a whole list (nil:
    /// `__typename`).
    private static func fields<Object: GraphQLObject>(_: Object.Type, _ planned: [PlannedField]) -> [Object.Field?] {
        planned.map { Object.Field(rawValue: $0.name) }
    }

    private mutating func object<Object: GraphQLObject>(
        _ object: Object?, _ planned: [PlannedField], fields: [Object.Field?]
    ) async {
        guard let object else { return null() }
        buffer.writeStaticString("{")
        for (index, field) in planned.enumerated() {
            if index > 0 { buffer.writeStaticString(",") }
            buffer.writeBytes(field.keyJSON)
            if let resolved = fields[index] {
                await resolved.write(of: object, field, into: &self)
            } else {
                // `__typename`: the plan holds only it and the schema's fields, and the schema
                // is built from the fields' cases.
                string(Object.typeName)
            }
        }
        buffer.writeStaticString("}")
    }

    /// A list of objects, each with the entries `planned` asks for. Once the first is written,
    /// room for the others is made at once (a list of 493 characters is one allocation, not a
    /// dozen doublings and copies).
    mutating func list<Object: GraphQLObject>(_ objects: [Object?]?, _ planned: [PlannedField]) async {
        guard let objects else { return null() }
        let fields = Self.fields(Object.self, planned)
        buffer.writeStaticString("[")
        for (index, object) in objects.enumerated() {
            if index > 0 { buffer.writeStaticString(",") }
            let start = buffer.writerIndex
            await self.object(object, planned, fields: fields)
            if index == 0 {
                buffer.reserveCapacity(buffer.writerIndex + (buffer.writerIndex - start + 1) * (objects.count - 1) + 1)
            }
        }
        buffer.writeStaticString("]")
    }
}
