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
        let failedBefore = catalog.policy.storage.failedWrites
        // Page 1 of each list tells how many pages there are.
        // Progress from the first request on, so that a client's deadline (which progress
        // restarts) never runs out while the first pages are fetched from a slow upstream.
        var firstPages: [RecordKind: PageAnswer] = [:]
        await progress(0, RecordKind.allCases.count, "fetching the first page of each list")
        for (index, resource) in RecordKind.allCases.enumerated() {
            firstPages[resource] = try await catalog.list(resource, page: 1, filters: [], force: true, fallback: false)
            await progress(index + 1, RecordKind.allCases.count, "\(resource.plural) page 1")
        }
        let pagesOf = firstPages.mapValues(\.pages)
        // Jobs are made as they start, never listed up front: what is held at once is
        // `concurrency` jobs, whatever the number of pages (itself checked against the limit).
        let pageCount = pagesOf.values.reduce(0) { $0 + max(0, $1 - 1) }
        let characters = firstPages[.character]!.count
        let avatars = try await catalog.database.charactersWithoutAvatar(upTo: characters)
        let total = RecordKind.allCases.count + pageCount + avatars.count
        var done = RecordKind.allCases.count
        await progress(done, total, "first pages of characters, locations and episodes")
        try await withThrowingTaskGroup(of: String.self) { group in
            // Every page of every list, then every avatar not held yet: `concurrency` at a time.
            var pages = RecordKind.allCases.lazy.flatMap { kind in
                stride(from: 2, through: pagesOf[kind] ?? 0, by: 1).lazy.map { (kind, $0) }
            }.makeIterator()
            var avatarIDs = avatars.makeIterator()
            func startNext() {
                if let (kind, page) = pages.next() {
                    group.addTask {
                        _ = try await catalog.list(kind, page: page, filters: [], force: true, fallback: false)
                        return "\(kind.plural) page \(page)/\(pagesOf[kind] ?? 0)"
                    }
                } else if let id = avatarIDs.next() {
                    group.addTask {
                        try await fetchAvatar(id)
                        return "avatar of character \(id)"
                    }
                }
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
        // Pages fetched but not stored (the disk full) are not a mirror: fail, naming the disk.
        let storage = catalog.policy.storage
        if storage.failedWrites > failedBefore {
            throw storage.currentFailure ?? CharacterError.mirrorIncomplete("pages that could not be stored")
        }
        try await storage.required("the mirror's completion") {
            try await catalog.database.completeMirror(counts: firstPages.mapValues(\.count), at: Date())
        }
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
        } catch {
            // The upstream failing stops the sync as a failing page does, saying so.
            throw CharacterError.syncStopped(at: "the avatar of character \(id)", error)
        }
        guard let bytes, let type = ImageKind.contentType(of: bytes) else { return }
        try await catalog.policy.storage.bestEffort("the avatar of character \(id)") {
            try await catalog.database.storeImage(id: id, contentType: type, bytes: bytes, fetchedAt: Date())
        }
    }
}
