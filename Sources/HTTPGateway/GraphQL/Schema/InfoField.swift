import Graphiti

/// `Info`'s fields: page numbers, not links.
enum InfoField: String, GraphQLObjectField {
    case count, pages, next, prev

    var component: FieldComponent<InfoNode, QueryContext> {
        switch self {
        case .count: return Graphiti.Field(rawValue, at: \.count).description("The length of the response.")
        case .pages: return Graphiti.Field(rawValue, at: \.pages).description("The amount of pages.")
        case .next: return Graphiti.Field(rawValue, at: \.next).description("Number of the next page (if it exists)")
        case .prev:
            return Graphiti.Field(rawValue, at: \.prev).description("Number of the previous page (if it exists)")
        }
    }

    func writeScalar(of info: InfoNode, into answer: inout AnswerWriter) -> Bool {
        switch self {
        case .count: answer.int(info.count)
        case .pages: answer.int(info.pages)
        case .next: answer.int(info.next)
        case .prev: answer.int(info.prev)
        }
        return true
    }
}
