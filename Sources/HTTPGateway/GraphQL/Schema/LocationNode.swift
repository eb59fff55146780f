import Graphiti
import RnmAPI

/// `Location` of the API's schema: every field nullable, `residents` a non-null list. A place
/// the API does not know (a character's `unknown` origin) has only its name.
final class LocationNode: RecordNode {
    typealias Field = LocationField
    static let typeName = "Location"

    let record: Location?
    let unknownName: String?
    let level: Level

    init(_ record: Location, level: Level) {
        self.record = record
        unknownName = nil
        self.level = level
    }

    init(unknownNamed name: String, level: Level) {
        record = nil
        unknownName = name
        self.level = level
    }

    var id: GraphQLIDValue? { record.map { GraphQLIDValue($0.id) } }
    var name: String? { record?.name ?? unknownName }
    var type: String? { record?.type }
    var dimension: String? { record?.dimension }
    var created: String? { record?.created }

    func residents(context: QueryContext, arguments: NoArguments) async -> [CharacterNode?] {
        guard let record else { return [] }
        return await level.nodes(record.residentIds, as: CharacterNode.self)
    }
}
