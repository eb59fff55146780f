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
        if let index = entries(of: object, planned, fields: fields, from: 0) {
            await rest(of: object, planned, fields: fields, at: index)
        }
    }

    /// Writes `object`'s entries from `start` on while they are scalars: nil once the object is
    /// written whole, else the index of the first entry that needs records (its key written).
    private mutating func entries<Object: GraphQLObject>(
        of object: Object, _ planned: [PlannedField], fields: [Object.Field?], from start: Int
    ) -> Int? {
        if start == 0 { buffer.writeStaticString("{") }
        for index in start..<planned.count {
            if index > 0 { buffer.writeStaticString(",") }
            buffer.writeBytes(planned[index].keyJSON)
            if let field = fields[index] {
                if !field.writeScalar(of: object, into: &self) { return index }
            } else {
                // `__typename`: the plan holds only it and the schema's fields, and the schema
                // is built from the fields' cases.
                string(Object.typeName)
            }
        }
        buffer.writeStaticString("}")
        return nil
    }

    /// The rest of `object` from the entry at `index`, which needs records.
    private mutating func rest<Object: GraphQLObject>(
        of object: Object, _ planned: [PlannedField], fields: [Object.Field?], at index: Int
    ) async {
        var pending: Int? = index
        while let index = pending {
            await fields[index]?.write(of: object, planned[index], into: &self)
            pending = entries(of: object, planned, fields: fields, from: index + 1)
        }
    }

    /// A list of objects, each with the entries `planned` asks for. Once the first is written,
    /// room for the others is made at once (a list of 493 characters is one allocation, not a
    /// dozen doublings and copies). An object of scalars alone is written without an `await`.
    mutating func list<Object: GraphQLObject>(_ objects: [Object?]?, _ planned: [PlannedField]) async {
        guard let objects else { return null() }
        let fields = Self.fields(Object.self, planned)
        buffer.writeStaticString("[")
        for (index, object) in objects.enumerated() {
            if index > 0 { buffer.writeStaticString(",") }
            let start = buffer.writerIndex
            if let object {
                if let pending = entries(of: object, planned, fields: fields, from: 0) {
                    await rest(of: object, planned, fields: fields, at: pending)
                }
            } else {
                null()
            }
            if index == 0 {
                buffer.reserveCapacity(buffer.writerIndex + (buffer.writerIndex - start + 1) * (objects.count - 1) + 1)
            }
        }
        buffer.writeStaticString("]")
    }
}
