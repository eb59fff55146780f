import Foundation
import Logging
import Messaging
import RnmAPI
import ServiceKit

/// `characters.sync`: mirrors every page of characters, locations and episodes, a bounded
/// number of requests at a time, one transaction per page, reporting progress. What was stored
/// stays stored if it is interrupted.
struct Mirror: Sendable {
    let catalog: CharacterCatalog
    /// Upstream requests in flight at once.
    let concurrency: Int

    func run(progress: @escaping @Sendable (Int, Int, String) async -> Void) async throws -> SyncResult {
        let started = ContinuousClock.now
        // Page 1 of each list tells how many pages there are.
        // Progress from the first request on, so that a client's deadline (which progress
        // restarts) never runs out while the first pages are fetched from a slow upstream.
        var firstPages: [Resource: PageAnswer] = [:]
        await progress(0, Resource.allCases.count, "fetching the first page of each list")
        for (index, resource) in Resource.allCases.enumerated() {
            firstPages[resource] = try await catalog.list(resource, page: 1, filters: [], force: true, fallback: false)
            await progress(index + 1, Resource.allCases.count, "\(resource.plural) page 1")
        }
        let jobs = Resource.allCases.flatMap { resource in
            (2...max(2, firstPages[resource]!.pages)).filter { $0 <= firstPages[resource]!.pages }.map { (resource, $0) }
        }
        let total = Resource.allCases.count + jobs.count
        var done = Resource.allCases.count
        await progress(done, total, "first pages of characters, locations and episodes")
        try await withThrowingTaskGroup(of: (Resource, Int).self) { group in
            var pending = jobs[...]
            func startNext() {
                guard let (resource, page) = pending.popFirst() else { return }
                group.addTask {
                    _ = try await catalog.list(resource, page: page, filters: [], force: true, fallback: false)
                    return (resource, page)
                }
            }
            for _ in 0..<concurrency { startNext() }
            while let (resource, page) = try await group.next() {
                done += 1
                await progress(done, total, "\(resource.plural) page \(page)/\(firstPages[resource]!.pages)")
                startNext()
            }
        }
        let elapsed = ContinuousClock.now - started
        return SyncResult(characters: firstPages[.character]!.count, locations: firstPages[.location]!.count,
                          episodes: firstPages[.episode]!.count, requests: total,
                          durationMs: Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000))
    }
}
