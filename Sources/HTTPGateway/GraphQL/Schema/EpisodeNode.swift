import Graphiti
import RnmAPI

/// `Episode` of the API's schema: every field nullable, `characters` a non-null list.
final class EpisodeNode: RecordNode {
    typealias Field = EpisodeField
    static let typeName = "Episode"

    let record: Episode
    let level: Level

    init(_ record: Episode, level: Level) {
        self.record = record
        self.level = level
    }

    var id: GraphQLIDValue? { GraphQLIDValue(record.id) }
    var name: String? { record.name }
    var airDate: String? { record.airDate }
    var episode: String? { record.code }
    var created: String? { record.created }

    func characters(context: QueryContext, arguments: NoArguments) async -> [CharacterNode?] {
        await level.nodes(record.characterIds, as: CharacterNode.self)
    }
}
