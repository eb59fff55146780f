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
            Type(InfoNode.self, as: "Info") {
                Field("count", at: \.count).description("The length of the response.")
                Field("pages", at: \.pages).description("The amount of pages.")
                Field("next", at: \.next).description("Number of the next page (if it exists)")
                Field("prev", at: \.prev).description("Number of the previous page (if it exists)")
            }
            Type(CharacterNode.self, as: "Character") {
                Field("id", at: \.id).description("The id of the character.")
                Field("name", at: \.name).description("The name of the character.")
                Field("status", at: \.status)
                    .description("The status of the character ('Alive', 'Dead' or 'unknown').")
                Field("species", at: \.species).description("The species of the character.")
                Field("type", at: \.type).description("The type or subspecies of the character.")
                Field("gender", at: \.gender)
                    .description("The gender of the character ('Female', 'Male', 'Genderless' or 'unknown').")
                Field("origin", at: CharacterNode.origin).description("The character's origin location")
                Field("location", at: CharacterNode.location).description("The character's last known location")
                Field("image", at: CharacterNode.image)
                    .description("Link to the character's image (300x300px), served and cached by rnm.")
                Field("episode", at: CharacterNode.episode).description("Episodes in which this character appeared.")
                Field("created", at: \.created).description("Time at which the character was created in the database.")
            }
            Type(LocationNode.self, as: "Location") {
                Field("id", at: \.id).description("The id of the location.")
                Field("name", at: \.name).description("The name of the location.")
                Field("type", at: \.type).description("The type of the location.")
                Field("dimension", at: \.dimension).description("The dimension in which the location is located.")
                Field("residents", at: LocationNode.residents)
                    .description("List of characters who have been last seen in the location.")
                Field("created", at: \.created).description("Time at which the location was created in the database.")
            }
            Type(EpisodeNode.self, as: "Episode") {
                Field("id", at: \.id).description("The id of the episode.")
                Field("name", at: \.name).description("The name of the episode.")
                Field("air_date", at: \.airDate).description("The air date of the episode.")
                Field("episode", at: \.episode).description("The code of the episode.")
                Field("characters", at: EpisodeNode.characters)
                    .description("List of characters who have been seen in the episode.")
                Field("created", at: \.created).description("Time at which the episode was created in the database.")
            }
            page(CharacterNode.self, as: "Characters")
            page(LocationNode.self, as: "Locations")
            page(EpisodeNode.self, as: "Episodes")
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
                kind.rawValue, at: { resolver in { try await resolver.one($1.id, context: $0) } }
            ) {
                Argument("id", at: \.id)
            }.description("Get a specific \(kind.rawValue) by ID"),
            Field<Resolver, Context, PageNode<Node>?, ListArguments>(
                kind.plural, at: { resolver in { try await resolver.page($1, context: $0) } }
            ) {
                Argument("page", at: \.page)
                Argument("filter", at: \.filter)
            }.description("Get the list of all \(kind.plural)"),
            Field<Resolver, Context, [Node?]?, Resolver.IDsArguments>(
                kind.plural + "ByIds", at: { resolver in { try await resolver.many($1.ids, context: $0) } }
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
    private static func page<Node: RecordNode>(
        _ type: Node.Type, as name: String
    ) -> Type<Resolver, Context, PageNode<Node>> {
        Type(PageNode<Node>.self, as: name) {
            Field("info", at: \.info)
            Field("results", at: \.results)
        }
    }
}
