import Graphiti
import RnmAPI

/// The Rick and Morty API's GraphQL schema, field for field (afuh/rick-and-morty-api
/// `graphql/typeDefs.js`: names, arguments, nullability), over rnm's records. The filter inputs
/// are read from each kind's list params (RnmAPI), not listed again.
enum RickAndMortySchema {
    typealias Resolver = RickAndMortyResolver
    typealias Context = QueryContext

    /// Built once: the schema is fixed, and a mistake in it is a programming error that every
    /// test meets.
    static let schema: Schema<Resolver, Context> = {
        do {
            return try make()
        } catch {
            preconditionFailure("the GraphQL schema does not build: \(error)")
        }
    }()

    static func make() throws -> Schema<Resolver, Context> {
        try Schema<Resolver, Context> {
            Scalar(GraphQLIDValue.self, as: "ID")
                .description("A record's id: a string, read from a string or an integer.")
            filter(CharacterListParams.self)
            filter(LocationListParams.self)
            filter(EpisodeListParams.self)
            Type(InfoNode.self, as: InfoNode.typeName) { return InfoField.allCases.map(\.component) }
            Type(CharacterNode.self, as: CharacterNode.typeName) { return CharacterField.allCases.map(\.component) }
            Type(LocationNode.self, as: LocationNode.typeName) { return LocationField.allCases.map(\.component) }
            Type(EpisodeNode.self, as: EpisodeNode.typeName) { return EpisodeField.allCases.map(\.component) }
            page(CharacterNode.self)
            page(LocationNode.self)
            page(EpisodeNode.self)
            Query {
                return rootFields(CharacterNode.self) + rootFields(LocationNode.self) + rootFields(EpisodeNode.self)
            }
        }
    }

    /// A kind's three root fields, named from its kind: `character(id)`, `characters(page,
    /// filter)`, `charactersByIds(ids)`.
    private static func rootFields<Node: RecordNode>(_ type: Node.Type) -> [FieldComponent<Resolver, Context>] {
        let kind = Node.Record.kind
        typealias ListArguments = Resolver.ListArguments<Node.Record.ListParamsType>
        return [
            Field<Resolver, Context, Node?, Resolver.IDArguments>(
                RootField.one.name(of: kind), at: { resolver in { try await resolver.one($1.id, context: $0) } }
            ) {
                Argument("id", at: \.id)
            }.description("Get a specific \(kind.rawValue) by ID"),
            Field<Resolver, Context, PageNode<Node>?, ListArguments>(
                RootField.page.name(of: kind), at: { resolver in { try await resolver.page($1, context: $0) } }
            ) {
                Argument("page", at: \.page)
                Argument("filter", at: \.filter)
            }.description("Get the list of all \(kind.plural)"),
            Field<Resolver, Context, [Node?]?, Resolver.IDsArguments>(
                RootField.many.name(of: kind), at: { resolver in { try await resolver.many($1.ids, context: $0) } }
            ) {
                Argument("ids", at: \.ids)
            }.description("Get a list of \(kind.plural) selected by ids"),
        ]
    }

    /// `FilterCharacter`, `FilterLocation`, `FilterEpisode`: the kind's filters, as its list
    /// params name them.
    private static func filter<Params: ListParams>(_ type: Params.Type) -> Input<Resolver, Context, Params> {
        let name = Params.kind.rawValue.prefix(1).uppercased() + Params.kind.rawValue.dropFirst()
        return Input(type, as: "Filter\(name)") {
            return Params.filterFields.map { InputField($0.name, at: $0.field) }
        }
    }

    /// `Characters`, `Locations`, `Episodes`: `{ info, results }`.
    private static func page<Node: RecordNode>(_ type: Node.Type) -> Type<Resolver, Context, PageNode<Node>> {
        Type(PageNode<Node>.self, as: PageNode<Node>.typeName) { return PageField<Node>.allCases.map(\.component) }
    }
}
