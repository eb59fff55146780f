import Graphiti
import RnmAPI

/// `Character` of the API's schema (afuh/rick-and-morty-api `graphql/typeDefs.js`): every field
/// nullable as there, `episode` a non-null list.
final class CharacterNode: RecordNode {
    typealias Field = CharacterField
    static let typeName = "Character"

    let record: Character
    let level: Level

    init(_ record: Character, level: Level) {
        self.record = record
        self.level = level
    }

    var id: GraphQLIDValue? { GraphQLIDValue(record.id) }
    var name: String? { record.name }
    var status: String? { record.status }
    var species: String? { record.species }
    var type: String? { record.type }
    var gender: String? { record.gender }
    var created: String? { record.created }

    func image(context: QueryContext, arguments: NoArguments) -> String? {
        context.shapes.avatarURL(record)
    }

    func origin(context: QueryContext, arguments: NoArguments) async -> LocationNode? {
        await place(record.origin)
    }

    func location(context: QueryContext, arguments: NoArguments) async -> LocationNode? {
        await place(record.location)
    }

    func episode(context: QueryContext, arguments: NoArguments) async -> [EpisodeNode?] {
        await level.nodes(record.episodeIds, as: EpisodeNode.self)
    }

    /// An origin or location: the record, or for one the API does not know (`unknown`, no id)
    /// its name alone, as the API's server answers.
    private func place(_ place: PlaceRef) async -> LocationNode? {
        guard let id = place.id else { return LocationNode(unknownNamed: place.name, level: level) }
        return await level.nodes([id], as: LocationNode.self).first ?? nil
    }
}
