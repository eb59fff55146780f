import GraphQL

/// A validated query's answer shape, worked out before anything is read: the operation's fields
/// as GraphQL's `CollectFields` merges them (aliases, fragments, `@skip` and `@include` with
/// the variables put in), level by level down to the scalars. Planning costs what
/// ``QueryCost`` counted: fields as fragments expand them, within `RNM_GRAPHQL_MAX_COST`.
///
/// A query this does not plan (introspection below the root, a mutation, an operation that is
/// not there, a variable the schema's input types refuse) is run by the GraphQL library, which
/// words its errors as it always has.
struct ExecutionPlan: Sendable {
    /// The root's entries.
    let fields: [PlannedField]

    /// Each object type's fields and the named type each returns, and the fields' arguments,
    /// read once from the schema.
    struct Shape: Sendable {
        let queryType: String
        let fields: [String: [String: String]]
        /// By type, then field: each argument's definition.
        let arguments: [String: [String: [String: GraphQLArgument]]]

        init(_ schema: GraphQLSchema) {
            queryType = schema.queryType?.name ?? "Query"
            var fields: [String: [String: String]] = [:]
            var arguments: [String: [String: [String: GraphQLArgument]]] = [:]
            for case let (name, type as GraphQLObjectType) in schema.typeMap where !name.hasPrefix("__") {
                let map = (try? type.fields()) ?? [:]
                fields[name] = map.reduce(into: [:]) { $0[$1.key] = getNamedType(type: $1.value.type)?.name }
                arguments[name] = map.reduce(into: [:]) { byField, field in
                    byField[field.key] = field.value.args.reduce(into: [:]) { $0[$1.key] = $1.value }
                }
            }
            self.fields = fields
            self.arguments = arguments
        }
    }

    init?(_ document: Document, operationName: String?, variables: [String: Map], schema: GraphQLSchema, shape: Shape) {
        let operations = document.definitions.compactMap { $0 as? OperationDefinition }
        let chosen =
            operationName.map { name in operations.first { $0.name?.value == name } }
            ?? (operations.count == 1 ? operations.first : nil)
        guard let operation = chosen, operation.operation == .query else { return nil }
        var fragments: [String: FragmentDefinition] = [:]
        for case let fragment as FragmentDefinition in document.definitions {
            fragments[fragment.name.value] = fragment
        }
        do {
            let inputs = try InputValues(
                schema: schema, definitions: operation.variableDefinitions, given: variables)
            let collector = Collector(fragments: fragments, inputs: inputs, shape: shape)
            fields = try collector.collect([operation.selectionSet], in: shape.queryType)
        } catch {
            return nil
        }
    }

    private struct Collector {
        let fragments: [String: FragmentDefinition]
        let inputs: InputValues
        let shape: Shape

        typealias Unsupported = InputValues.Unsupported

        /// The entries of an object of `type` that `sets` (one per merged field) ask for.
        func collect(_ sets: [SelectionSet], in type: String) throws(Unsupported) -> [PlannedField] {
            var gathered = Gathered()
            for set in sets { try gather(set, in: type, into: &gathered) }
            var planned: [PlannedField] = []
            for key in gathered.order {
                planned.append(try plan(key, nodes: gathered.nodes[key] ?? [], in: type))
            }
            return planned
        }

        private struct Gathered {
            var order: [String] = []
            var nodes: [String: [Field]] = [:]
            var visited: Set<String> = []
        }

        private func gather(_ set: SelectionSet, in type: String, into gathered: inout Gathered) throws(Unsupported) {
            for selection in set.selections {
                switch selection {
                case let field as Field:
                    guard try included(field.directives) else { continue }
                    let key = field.alias?.value ?? field.name.value
                    if gathered.nodes[key] == nil { gathered.order.append(key) }
                    gathered.nodes[key, default: []].append(field)
                case let inline as InlineFragment:
                    guard try included(inline.directives), inline.typeCondition.map({ $0.name.value == type }) ?? true
                    else { continue }
                    try gather(inline.selectionSet, in: type, into: &gathered)
                case let spread as FragmentSpread:
                    let name = spread.name.value
                    // Its directives first, as the library reads them: a repeat's too.
                    guard try included(spread.directives), !gathered.visited.contains(name) else { continue }
                    gathered.visited.insert(name)
                    guard let fragment = fragments[name], fragment.typeCondition.name.value == type else { continue }
                    try gather(fragment.selectionSet, in: type, into: &gathered)
                default:
                    throw Unsupported()
                }
            }
        }

        private func plan(_ key: String, nodes: [Field], in type: String) throws(Unsupported) -> PlannedField {
            guard let first = nodes.first else { throw Unsupported() }
            let name = first.name.value
            if name == "__typename" {
                return PlannedField(key: key, name: name, nodes: nodes, arguments: [:], selections: [])
            }
            guard !name.hasPrefix("__"), let returned = shape.fields[type]?[name] else { throw Unsupported() }
            var arguments: [String: InputValues.Value] = [:]
            for (argument, definition) in shape.arguments[type]?[name] ?? [:] {
                let given = first.arguments.first { $0.name.value == argument }?.value
                // A variable not given leaves its argument out.
                if let given, (given as? Variable).map({ inputs.variables[$0.name.value] != nil }) ?? true {
                    arguments[argument] = try inputs.argument(given, as: definition.type)
                } else if definition.type is GraphQLNonNull || definition.defaultValue != nil {
                    // The library's error for a non-null argument left out; a default this
                    // does not read.
                    throw Unsupported()
                }
            }
            let selections =
                shape.fields[returned] == nil ? [] : try collect(nodes.compactMap(\.selectionSet), in: returned)
            return PlannedField(key: key, name: name, nodes: nodes, arguments: arguments, selections: selections)
        }

        /// `@skip(if:)` and `@include(if:)`, the only directives a query may carry here.
        private func included(_ directives: [Directive]) throws(Unsupported) -> Bool {
            for directive in directives {
                guard let condition = directive.arguments.first(where: { $0.name.value == "if" }),
                    case .bool(let value) = try inputs.value(of: condition.value)
                else { throw Unsupported() }
                switch directive.name.value {
                case "skip": if value { return false }
                case "include": if !value { return false }
                default: throw Unsupported()
                }
            }
            return true
        }
    }
}
