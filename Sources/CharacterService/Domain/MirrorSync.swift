import Foundation
import Logging
import Messaging
import RnmAPI
import ServiceKit

/// `characters.sync`: mirrors every page of characters, locations and episodes, a bounded
/// number of requests at a time, one transaction per page, reporting progress. What was stored
/// stays stored if it is interrupted.
struct MirrorSync: Sendable {
    let catalog: CharacterCatalog
    /// Upstream requests in flight at once.
    let concurrency: Int

    func run(progress: @escaping @Sendable (Int, Int, String) async -> Void) async throws -> SyncResult {
        let started = ContinuousClock.now
        // Page 1 of each list tells how many pages there are.
        // Progress from the first request on, so that a client's deadline (which progress
        // restarts) never runs out while the first pages are fetched from a slow upstream.
        var firstPages: [RecordKind: PageAnswer] = [:]
        await progress(0, RecordKind.allCases.count, "fetching the first page of each list")
        for (index, resource) in RecordKind.allCases.enumerated() {
            firstPages[resource] = try await catalog.list(resource, page: 1, filters: [], force: true, fallback: false)
            await progress(index + 1, RecordKind.allCases.count, "\(resource.plural) page 1")
        }
        let jobs = RecordKind.allCases.flatMap { resource in
            (2...max(2, firstPages[resource]!.pages)).filter { $0 <= firstPages[resource]!.pages }.map {
                (resource, $0)
            }
        }
        let characters = firstPages[.character]!.count
        let avatars = try await catalog.database.charactersWithoutAvatar(upTo: characters)
        let total = RecordKind.allCases.count + jobs.count + avatars.count
        var done = RecordKind.allCases.count
        await progress(done, total, "first pages of characters, locations and episodes")
        let pagesOf = firstPages.mapValues(\.pages)
        try await withThrowingTaskGroup(of: String.self) { group in
            // Every page of every list, then every avatar not held yet: `concurrency` at a time.
            var pending = jobs.map { job in
                { @Sendable () async throws -> String in
                    _ = try await catalog.list(job.0, page: job.1, filters: [], force: true, fallback: false)
                    return "\(job.0.plural) page \(job.1)/\(pagesOf[job.0] ?? 0)"
                }
            }[...]
            pending += avatars.map { id in
                { @Sendable () async throws -> String in
                    try await fetchAvatar(id)
                    return "avatar of character \(id)"
                }
            }
            func startNext() {
                guard let job = pending.popFirst() else { return }
                group.addTask { try await job() }
            }
            for _ in 0..<concurrency { startNext() }
            while let message = try await group.next() {
                done += 1
                await progress(done, total, message)
                startNext()
            }
        }
        // Only a sync that got every page marks the mirror complete: an interrupted one leaves
        // the previous mirror in force.
        try await catalog.database.completeMirror(counts: firstPages.mapValues(\.count), at: Date())
        let elapsed = ContinuousClock.now - started
        return SyncResult(
            characters: characters, locations: firstPages[.location]!.count,
            episodes: firstPages[.episode]!.count, requests: total,
            durationMs: Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000),
            avatars: avatars.count)
    }

    /// One avatar, stored if the upstream has one. A missing or unusable avatar (a 404, bytes
    /// that are not an image, too large) is skipped: it must not keep the mirror from completing.
    private func fetchAvatar(_ id: Int) async throws {
        let bytes: Data?
        do {
            bytes = try await catalog.policy.upstream(forced: true) { () async throws(UpstreamError) in
                try await catalog.upstream.avatar(id: id)
            }
        } catch .badPayload, .tooLarge {
            return
        }
        guard let bytes, let type = ImageKind.contentType(of: bytes) else { return }
        try await catalog.database.storeImage(id: id, contentType: type, bytes: bytes, fetchedAt: Date())
    }
}
