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
        async let total = catalog.list(.character, page: 1, filters: [])
        async let alive = catalog.list(.character, page: 1, filters: [("status", "alive")])
        async let dead = catalog.list(.character, page: 1, filters: [("status", "dead")])
        async let unknown = catalog.list(.character, page: 1, filters: [("status", "unknown")])
        let answers = try await [total, alive, dead, unknown]
        var writer = JSONObjectWriter()
        writer.integer("total", answers[0].count)
        writer.raw(
            "byStatus",
            ByteBuffer(
                string: "{\"alive\":\(answers[1].count),\"dead\":\(answers[2].count),\"unknown\":\(answers[3].count)}"))
        writer.freshness(.combined(answers.map(\.freshness)))
        return writer.finish()
    }
}
