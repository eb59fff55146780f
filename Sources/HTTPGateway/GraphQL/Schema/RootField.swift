import RnmAPI

/// The root fields every record kind has, named from the kind: `character(id)`,
/// `characters(page, filter)`, `charactersByIds(ids)` (the API's `graphql/typeDefs.js`). The
/// schema and ``RecordExecutor`` both read the names here.
enum RootField: CaseIterable {
    case one, page, many

    func name(of kind: RecordKind) -> String {
        switch self {
        case .one: kind.rawValue
        case .page: kind.plural
        case .many: kind.plural + "ByIds"
        }
    }
}
