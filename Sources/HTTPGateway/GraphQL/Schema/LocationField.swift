import Graphiti

/// `Location`'s fields: each case gives the schema's field and writes its value for
/// ``RecordExecutor``.
enum LocationField: String, GraphQLObjectField {
    case id, name, type, dimension, residents, created

    private typealias SchemaField<Value> = Graphiti.Field<LocationNode, QueryContext, Value, NoArguments>

    var component: FieldComponent<LocationNode, QueryContext> {
        switch self {
        case .id: return SchemaField(rawValue, at: \.id).description("The id of the location.")
        case .name: return SchemaField(rawValue, at: \.name).description("The name of the location.")
        case .type: return SchemaField(rawValue, at: \.type).description("The type of the location.")
        case .dimension:
            return SchemaField(rawValue, at: \.dimension).description("The dimension in which the location is located.")
        case .residents:
            return SchemaField(rawValue, at: LocationNode.residents)
                .description("List of characters who have been last seen in the location.")
        case .created:
            return SchemaField(rawValue, at: \.created)
                .description("Time at which the location was created in the database.")
        }
    }

    func writeScalar(of node: LocationNode, into answer: inout AnswerWriter) -> Bool {
        switch self {
        case .id: answer.id(node.id)
        case .name: answer.string(node.name)
        case .type: answer.string(node.type)
        case .dimension: answer.string(node.dimension)
        case .created: answer.string(node.created)
        case .residents: return false
        }
        return true
    }

    func write(of node: LocationNode, _ planned: PlannedField, into answer: inout AnswerWriter) async {
        switch self {
        case .residents:
            await answer.list(
                await node.residents(context: answer.context, arguments: .init()), planned.selections)
        default: _ = writeScalar(of: node, into: &answer)
        }
    }
}
