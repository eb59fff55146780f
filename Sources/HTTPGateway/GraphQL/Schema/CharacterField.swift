import Graphiti

/// `Character`'s fields (afuh/rick-and-morty-api `graphql/typeDefs.js`): each case gives the
/// schema's field and writes its value for ``RecordExecutor``.
enum CharacterField: String, GraphQLObjectField {
    case id, name, status, species, type, gender, origin, location, image, episode, created

    private typealias SchemaField<Value> = Graphiti.Field<CharacterNode, QueryContext, Value, NoArguments>

    var component: FieldComponent<CharacterNode, QueryContext> {
        switch self {
        case .id: return SchemaField(rawValue, at: \.id).description("The id of the character.")
        case .name: return SchemaField(rawValue, at: \.name).description("The name of the character.")
        case .status:
            return SchemaField(rawValue, at: \.status)
                .description("The status of the character ('Alive', 'Dead' or 'unknown').")
        case .species: return SchemaField(rawValue, at: \.species).description("The species of the character.")
        case .type: return SchemaField(rawValue, at: \.type).description("The type or subspecies of the character.")
        case .gender:
            return SchemaField(rawValue, at: \.gender)
                .description("The gender of the character ('Female', 'Male', 'Genderless' or 'unknown').")
        case .origin:
            return SchemaField(rawValue, at: CharacterNode.origin).description("The character's origin location")
        case .location:
            return SchemaField(rawValue, at: CharacterNode.location)
                .description("The character's last known location")
        case .image:
            return SchemaField(rawValue, at: CharacterNode.image)
                .description("Link to the character's image (300x300px), served and cached by rnm.")
        case .episode:
            return SchemaField(rawValue, at: CharacterNode.episode)
                .description("Episodes in which this character appeared.")
        case .created:
            return SchemaField(rawValue, at: \.created)
                .description("Time at which the character was created in the database.")
        }
    }

    func writeScalar(of node: CharacterNode, into answer: inout AnswerWriter) -> Bool {
        switch self {
        case .id: answer.id(node.id)
        case .name: answer.string(node.name)
        case .status: answer.string(node.status)
        case .species: answer.string(node.species)
        case .type: answer.string(node.type)
        case .gender: answer.string(node.gender)
        case .image: answer.string(node.image(context: answer.context, arguments: .init()))
        case .created: answer.string(node.created)
        case .origin, .location, .episode: return false
        }
        return true
    }

    func write(of node: CharacterNode, _ planned: PlannedField, into answer: inout AnswerWriter) async {
        let context = answer.context
        switch self {
        case .origin: await answer.object(await node.origin(context: context, arguments: .init()), planned.selections)
        case .location:
            await answer.object(await node.location(context: context, arguments: .init()), planned.selections)
        case .episode: await answer.list(await node.episode(context: context, arguments: .init()), planned.selections)
        default: _ = writeScalar(of: node, into: &answer)
        }
    }
}
