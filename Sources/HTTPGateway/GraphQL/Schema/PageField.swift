import Graphiti

/// A page's fields (`Characters`, `Locations`, `Episodes`): `info` and `results`.
enum PageField<Node: RecordNode>: String, GraphQLObjectField {
    case info, results

    var component: FieldComponent<PageNode<Node>, QueryContext> {
        switch self {
        case .info: return Graphiti.Field(rawValue, at: \PageNode<Node>.info)
        case .results: return Graphiti.Field(rawValue, at: \PageNode<Node>.results)
        }
    }

    func write(of page: PageNode<Node>, _ planned: PlannedField, into answer: inout AnswerWriter) async {
        switch self {
        case .info: await answer.object(page.info, planned.selections)
        case .results: await answer.list(page.results, planned.selections)
        }
    }
}
