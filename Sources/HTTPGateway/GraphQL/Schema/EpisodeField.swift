import Graphiti

/// `Episode`'s fields: each case gives the schema's field and writes its value for
/// ``RecordExecutor``.
enum EpisodeField: String, GraphQLObjectField {
    case id, name, airDate = "air_date", episode, characters, created

    private typealias SchemaField<Value> = Graphiti.Field<EpisodeNode, QueryContext, Value, NoArguments>

    var component: FieldComponent<EpisodeNode, QueryContext> {
        switch self {
        case .id: return SchemaField(rawValue, at: \.id).description("The id of the episode.")
        case .name: return SchemaField(rawValue, at: \.name).description("The name of the episode.")
        case .airDate: return SchemaField(rawValue, at: \.airDate).description("The air date of the episode.")
        case .episode: return SchemaField(rawValue, at: \.episode).description("The code of the episode.")
        case .characters:
            return SchemaField(rawValue, at: EpisodeNode.characters)
                .description("List of characters who have been seen in the episode.")
        case .created:
            return SchemaField(rawValue, at: \.created)
                .description("Time at which the episode was created in the database.")
        }
    }

    func writeScalar(of node: EpisodeNode, into answer: inout AnswerWriter) -> Bool {
        switch self {
        case .id: answer.id(node.id)
        case .name: answer.string(node.name)
        case .airDate: answer.string(node.airDate)
        case .episode: answer.string(node.episode)
        case .created: answer.string(node.created)
        case .characters: return false
        }
        return true
    }

    func write(of node: EpisodeNode, _ planned: PlannedField, into answer: inout AnswerWriter) async {
        switch self {
        case .characters:
            await answer.list(
                await node.characters(context: answer.context, arguments: .init()), planned.selections)
        default: _ = writeScalar(of: node, into: &answer)
        }
    }
}
