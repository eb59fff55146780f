/// An object type of the schema as ``RecordExecutor`` answers it: its name and its fields. The
/// fields are an enum whose cases each give the schema's field (Graphiti) and write its value,
/// so the schema and the executor read one list and a new field cannot be left out of either.
protocol GraphQLObject: Sendable {
    associatedtype Field: GraphQLObjectField where Field.Object == Self
    /// The type's name in the schema (`Character`).
    static var typeName: String { get }
}

/// A field of a ``GraphQLObject``: its case name is the schema's field name.
protocol GraphQLObjectField: RawRepresentable, CaseIterable, Sendable where RawValue == String {
    associatedtype Object: Sendable
    /// Writes a scalar field's value for `object` at once (its key is written already); false,
    /// writing nothing, for a field whose value needs records fetched (``write(of:_:into:)``).
    /// Scalars are written without an `await`: each was a task switch, a fifth of the CPU of
    /// a query of 9,860 records' scalars.
    func writeScalar(of object: Object, into answer: inout AnswerWriter) -> Bool
    /// Writes the field's value for `object` (its key is written already); an object's or a
    /// list's entries are `planned.selections`.
    func write(of object: Object, _ planned: PlannedField, into answer: inout AnswerWriter) async
}

extension GraphQLObjectField {
    /// A type with no scalar field (a page).
    func writeScalar(of object: Object, into answer: inout AnswerWriter) -> Bool { false }

    /// A type whose fields are all scalars (a page's info).
    func write(of object: Object, _ planned: PlannedField, into answer: inout AnswerWriter) async {
        _ = writeScalar(of: object, into: &answer)
    }
}
