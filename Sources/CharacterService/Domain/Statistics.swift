import Foundation
import Messaging
import NIOCore
import RnmAPI
import ServiceKit

/// `characters.stats`: counts per status, from the upstream's `info.count` of each status
/// filter (four cached list pages, fetched at once).
struct Statistics: Sendable {
    let catalog: CharacterCatalog

    func result() async throws -> ByteBuffer {
        // The whole list and each status the API knows (RnmAPI's one list of them), at once.
        let filters = [[]] + CharacterListParams.statuses.map { [("status", $0)] }
        let answers = try await withThrowingTaskGroup(of: (Int, PageAnswer).self) { group in
            for (index, filter) in filters.enumerated() {
                group.addTask { (index, try await catalog.list(.character, page: 1, filters: filter)) }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        var writer = JSONObjectWriter()
        writer.integer("total", answers[0]?.count ?? 0)
        var counts = JSONObjectWriter()
        for (index, status) in CharacterListParams.statuses.enumerated() {
            counts.integer(status, answers[index + 1]?.count ?? 0)
        }
        writer.raw("byStatus", counts.finish())
        writer.freshness(.combined(answers.values.map(\.freshness)))
        return writer.finish()
    }
}
