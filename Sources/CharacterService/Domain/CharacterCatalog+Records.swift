import Foundation
import Messaging
import RnmAPI
import ServiceKit

extension CharacterCatalog {
    /// One record by id.
    func record(_ resource: RecordKind, id: Int, force: Bool = false) async throws -> Answer<StoredRecord> {
        try await record(resource, id: id, stored: try await database.records(resource, ids: [id])[id], force: force)
    }

    /// One record by id, given what the cache holds for it (read by the caller).
    private func record(
        _ resource: RecordKind, id: Int, stored: StoredRecord?,
        force: Bool = false
    ) async throws -> Answer<StoredRecord> {
        try await policy.read(
            stored: stored.map { Stored($0, fetchedAt: $0.fetchedAt) }, force: force,
            local: { [self] in
                // Past a fresh complete mirror, or lately said absent: known without asking.
                if stored == nil,
                    try await !knownAbsent(resource, ids: [id]).isEmpty
                {
                    throw CharacterError.notFound(resource, id: id)
                }
                return nil
            },
            fetch: { [self] in
                let fetched = try await fetchRecords(resource, ids: [id], force: force)
                guard let record = fetched.value[id] else { throw CharacterError.notFound(resource, id: id) }
                return fetched.map { _ in record }
            },
            otherwise: { [self] error in
                if try await beyondMirror(resource, ids: [id]) == [id] {
                    throw CharacterError.notFound(resource, id: id)
                }
                throw CharacterError.upstreamUnavailable(what: "\(resource.rawValue) \(id)", error)
            })
    }

    /// Records by id, by the cache rule for many at once
    /// (``CachePolicy/readMany(_:stored:fetchedAt:absent:fetch:missing:otherwise:)``): the fresh
    /// ones from the cache, the rest in one multi-id upstream call. Its `unchecked` holds the ids
    /// neither cached nor checked, because the upstream failed (they may exist: not "missing").
    func records(_ resource: RecordKind, ids: [Int]) async throws -> BatchAnswer<Int, StoredRecord> {
        let stored = try await database.records(resource, ids: ids)
        return try await policy.readMany(
            ids, stored: stored, fetchedAt: \.fetchedAt,
            // Ids past a fresh complete mirror, or lately said absent, do not exist: not asked
            // for, and not "unchecked".
            absent: try await knownAbsent(resource, ids: ids.filter { stored[$0] == nil }),
            fetch: { [self] needed in try await fetchRecords(resource, ids: needed) },
            // Past a complete mirror, ids did not exist when it was made: missing, not unchecked.
            missing: { [self] ids in Set(try await beyondMirror(resource, ids: ids)) },
            otherwise: { error, needed in
                let list = needed.map(String.init).joined(separator: ",")
                throw CharacterError.upstreamUnavailable(what: "\(resource.plural) \(list)", error)
            })
    }

    /// The records of `ids` not cached yet, fetched in one call (the rest are not refetched:
    /// links are resolved from the cache when it has them).
    func resolve(
        _ resource: RecordKind, ids: [Int]
    ) async -> (records: [Int: StoredRecord], upstreamError: UpstreamError?) {
        var found = (try? await database.records(resource, ids: ids)) ?? [:]
        let missing = ids.filter { found[$0] == nil }
        guard !missing.isEmpty else { return (found, nil) }
        do {
            found.merge(try await fetchRecords(resource, ids: missing).value) { $1 }
            return (found, nil)
        } catch let error as UpstreamError {
            return (found, error)
        } catch is CancellationError {
            // Given up on by the client: what is returned goes to nobody (never cached).
            return (found, .cancelled)
        } catch {
            logger.error("resolving links failed", metadata: ["error": "\(error)"])
            return (found, nil)
        }
    }

    /// A character with the summaries of its episodes. When the character is fresh in the
    /// cache with all its episodes, that is one database read and nothing else.
    func characterDetail(
        id: Int
    ) async throws
        -> (answer: Answer<StoredRecord>, summaries: [Int: EpisodeSummary], upstreamError: UpstreamError?)
    {
        let cached = try await database.characterWithEpisodeSummaries(id: id)  // read 1
        if let cached, cached.record.related.allSatisfy({ cached.summaries[$0] != nil }),
            let hit = policy.freshHit(Stored(cached.record, fetchedAt: cached.record.fetchedAt))
        {
            return (hit, cached.summaries, nil)
        }
        let answer = try await record(.character, id: id, stored: cached?.record)
        var summaries = cached?.summaries ?? [:]
        // Read 1 looked up the episodes of the cached record; a new record may name others.
        let unchecked = answer.related.filter {
            summaries[$0] == nil && !(cached?.record.related.contains($0) ?? false)
        }
        if !unchecked.isEmpty, let found = try? await database.episodeSummaries(ids: unchecked) {  // read 2
            summaries.merge(found) { $1 }
        }
        let missing = answer.related.filter { summaries[$0] == nil }
        guard !missing.isEmpty else { return (answer, summaries, nil) }
        do {
            // Made from the fetched episodes themselves, not read back: a store is best effort
            // (the disk may be full), and this is the cold path only.
            let fetched = try await fetchRecords(.episode, ids: missing)
            let decoder = JSONCoding.decoder
            for id in missing {
                guard let json = fetched.value[id]?.json, let episode = try? decoder.decode(Episode.self, from: json)
                else { continue }
                summaries[id] = EpisodeSummary(
                    id: episode.id, code: episode.code, name: episode.name, airDate: episode.airDate)
            }
            return (answer, summaries, nil)
        } catch let error as UpstreamError {
            return (answer, summaries, error)
        }
    }

    /// Those of `ids` known not to exist without asking: past a fresh complete mirror, or said
    /// absent by the upstream within the max age.
    private func knownAbsent(_ resource: RecordKind, ids: [Int]) async throws -> Set<Int> {
        guard !ids.isEmpty else { return [] }
        let said = absentIDs.absent(resource, ids) { policy.isFresh($0) }
        let rest = ids.filter { !said.contains($0) }
        return said.union(try await beyondMirror(resource, ids: rest, freshOnly: true))
    }

    /// Those of `ids` past the end of a complete mirror (which holds every id up to its count):
    /// records that did not exist when it was made. With `freshOnly`, only a fresh mirror is
    /// asked (known without asking the upstream); otherwise any, the best knowledge there is
    /// when the upstream cannot be asked.
    func beyondMirror(_ resource: RecordKind, ids: [Int], freshOnly: Bool = false) async throws -> [Int] {
        guard !ids.isEmpty, let mirror = try await database.mirror(),
            !freshOnly || policy.isFresh(mirror.completedAt)
        else { return [] }
        let count = mirror.counts[resource] ?? 0
        return ids.filter { $0 > count }
    }

    /// Fetches records, stores them in one transaction and answers them as stored, once for
    /// identical callers in flight.
    private func fetchRecords(
        _ resource: RecordKind, ids: [Int],
        force: Bool = false
    ) async throws -> Answer<[Int: StoredRecord]> {
        let key = "\(resource.rawValue)/" + ids.map(String.init).joined(separator: ",")
        return try await policy.fetchOnce(
            recordFlights, ExactText(key), force: force,
            stored: { [self] in
                let stored = try await database.records(resource, ids: ids)
                guard stored.count == Set(ids).count, let oldest = stored.values.map(\.fetchedAt).min() else {
                    return nil
                }
                return Stored(stored, fetchedAt: oldest)
            }
        ) { [self] in
            try await policy.fetchConditionally(
                forced: force,
                // One stored record is asked conditionally.
                validator: { ids.count == 1 ? try await database.validator(resource: resource, id: ids[0]) : nil },
                ask: { validator async throws(UpstreamError) in
                    try await upstream.records(resource, ids: ids, validator: validator)
                },
                renewing: "\(resource.rawValue) \(ids[0])",
                renew: { now in try await database.renew(resource: resource, id: ids[0], at: now) },
                stored: { now in
                    guard var renewed = try await database.records(resource, ids: ids)[ids[0]] else { return nil }
                    renewed.fetchedAt = now
                    return [ids[0]: renewed]
                }
            ) { records, received, now in
                try await store(resource, ids: ids, records: records, validator: received, fetchedAt: now)
            }
        }
    }

    /// Stores fetched records in one transaction and answers them as stored; the ids asked for
    /// and not answered are noted absent.
    private func store(
        _ resource: RecordKind, ids: [Int], records: [FetchedRecord], validator: Validator?,
        fetchedAt now: Date
    ) async throws -> [Int: StoredRecord] {
        try await policy.storage.bestEffort("\(resource.plural) \(ids.count == 1 ? String(ids[0]) : "by id")") {
            try await database.store(records: records, resource: resource, fetchedAt: now, validator: validator)
        }
        absentIDs.note(resource, Set(ids).subtracting(records.map(\.id)), checkedAt: now)
        absentIDs.forget(resource, records.map(\.id))
        let fetched = records.map { ($0.id, StoredRecord(json: $0.json, related: $0.related, fetchedAt: now)) }
        return Dictionary(fetched) { $1 }
    }
}
