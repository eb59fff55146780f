import Foundation
import Messaging
import NIOCore
import RnmAPI
import ServiceKit

/// The `characters.*`, `locations.*`, `episodes.*` and `favorites.*` methods. Results are
/// written by splicing stored record JSON; records are never decoded to answer.
enum CharacterRoutes {
    /// Reads answered fresh from the cache are kept in `replyCache` until their data's max age
    /// (or until the database changes) and answered again without running their route.
    static func router(
        catalog: CharacterCatalog, syncConcurrency: Int, maxParamBytes: Int,
        replyCache: ExpiringCache<ByteBuffer>? = nil
    ) -> RPCRouter {
        var router = RPCRouter(service: ServiceName.characters, replyCache: replyCache)
        let validate = ParamsValidation(maxParamBytes: maxParamBytes)
        let avatars = Avatars(catalog: catalog)
        @Sendable func cacheable(_ json: ByteBuffer, _ freshness: Freshness) -> CacheableResult {
            CacheableResult(json: json, validUntil: freshness.validUntil(maxAge: catalog.policy.maxAge))
        }
        @Sendable func cacheable(_ answer: PageAnswer) -> CacheableResult {
            cacheable(pageResult(answer), answer.freshness)
        }

        /// A page of the list whose params these are (their kind and filters say which).
        @Sendable func list<Params: ListParams>(_ params: Params, force: Bool = false) async throws -> PageAnswer {
            try await catalog.list(
                Params.kind, page: try validate.page(params.page), filters: try validate.filters(params), force: force)
        }
        router.registerCached(RPCMethods.charactersList) { params, _ in cacheable(try await list(params)) }
        router.registerEncoded(RPCMethods.charactersRefresh) { params, _ in
            pageResult(try await list(params, force: true))
        }
        router.registerCached(RPCMethods.locationsList) { params, _ in cacheable(try await list(params)) }
        router.registerCached(RPCMethods.episodesList) { params, _ in cacheable(try await list(params)) }
        router.registerCached(RPCMethods.charactersGet) { params, _ in
            let episodes = try await catalog.characterDetail(id: try validate.id(params.id))
            let answer = episodes.answer
            var writer = JSONObjectWriter(capacity: answer.value.json.count + 96 * episodes.summaries.count + 128)
            var character = ByteBuffer(bytes: answer.value.json.dropLast())  // "{...", then the episodes
            character.writeStaticString(",\"episodes\":[")
            for (index, summary) in answer.value.related.compactMap({ episodes.summaries[$0] }).enumerated() {
                if index > 0 { character.writeStaticString(",") }
                summary.writeJSON(into: &character)
            }
            character.writeStaticString("]}")
            writer.raw("character", character)
            let freshness = merge(answer.freshness, episodes.upstreamError)
            writer.freshness(freshness)
            return cacheable(writer.finish(), freshness)
        }
        func getMany<Result>(_ method: RPCMethod<IDsParams, Result>, _ kind: RecordKind) {
            router.registerCached(method) { params, _ in
                let (json, freshness) = try await batch(kind, ids: try validate.ids(params.ids), catalog: catalog)
                return cacheable(json, freshness)
            }
        }
        getMany(RPCMethods.charactersGetMany, .character)
        getMany(RPCMethods.locationsGetMany, .location)
        getMany(RPCMethods.episodesGetMany, .episode)
        router.registerCached(RPCMethods.locationsGet) { params, _ in
            let (json, freshness) = try await detail(
                .location, id: try validate.id(params.id), key: "location", linked: .character,
                linkedKey: "residents", catalog: catalog)
            return cacheable(json, freshness)
        }
        router.registerCached(RPCMethods.episodesGet) { params, _ in
            let (json, freshness) = try await detail(
                .episode, id: try validate.id(params.id), key: "episode", linked: .character,
                linkedKey: "characters", catalog: catalog)
            return cacheable(json, freshness)
        }
        let syncs = SharedRun<SyncResult>()
        router.register(RPCMethods.charactersSync) { _, context in
            try await syncs.run(
                progress: { done, total, message in await context.progress(done: done, total: total, message: message) }
            ) { progress in try await MirrorSync(catalog: catalog, concurrency: syncConcurrency).run(progress: progress)
            }
        }
        router.registerEncoded(RPCMethods.charactersStats) { _, _ in
            try await Statistics(catalog: catalog).result()
        }
        router.registerEncoded(RPCMethods.charactersImage) { params, _ in
            let avatar = try await avatars.image(id: try validate.id(params.id))
            let (image, freshness) = (avatar.value, avatar.freshness)
            var writer = JSONObjectWriter(capacity: image.bytes.count * 4 / 3 + 128)
            writer.integer("id", params.id)
            writer.string("contentType", image.contentType)
            writer.string("bytes", image.bytes.base64EncodedString())
            writer.freshness(freshness)
            return writer.finish()
        }
        for (method, favorite) in [(RPCMethods.favoritesAdd, true), (RPCMethods.favoritesRemove, false)] {
            router.register(method) { params, _ in
                let id = try validate.id(params.id)
                try await catalog.setFavorite(id: id, favorite)
                return FavoriteState(id: id, favorite: favorite)
            }
        }
        // Never `registerCached`: another replica may change the list (RNM_FAVORITES_URL), and
        // no commit here would empty a kept copy (CharacterServiceApp.parts says more).
        router.registerEncoded(RPCMethods.favoritesList) { _, _ in
            var writer = JSONObjectWriter()
            writer.array("items", try await catalog.favorites())
            return writer.finish()
        }
        router.register(RPCMethods.charactersHealth) { _, _ in
            try await catalog.healthReport()
        }
        return router
    }

    /// `[1,2,3]`.
    private static func idList(_ ids: [Int]) -> ByteBuffer {
        ByteBuffer(string: "[" + ids.map(String.init).joined(separator: ",") + "]")
    }

    /// `{page, pages, count, items, ...freshness}`.
    private static func pageResult(_ answer: PageAnswer) -> ByteBuffer {
        var writer = JSONObjectWriter(capacity: answer.items.reduce(160) { $0 + $1.count + 1 })
        writer.integer("page", answer.page)
        writer.integer("pages", answer.pages)
        writer.integer("count", answer.count)
        writer.array("items", answer.items)
        writer.freshness(answer.freshness)
        return writer.finish()
    }

    /// `{items, missingIds, uncheckedIds, ...freshness}` for `*.getMany`: records in the order
    /// asked. Missing: the upstream said they do not exist. Unchecked: not cached, and the
    /// upstream could not be asked.
    private static func batch(
        _ resource: RecordKind, ids: [Int], catalog: CharacterCatalog
    ) async throws -> (ByteBuffer, Freshness) {
        let found = try await catalog.records(resource, ids: ids)
        var writer = JSONObjectWriter()
        writer.array("items", ids.compactMap { found.values[$0]?.json })
        let absent = ids.filter { found.values[$0] == nil }
        writer.raw("missingIds", idList(absent.filter { !found.unchecked.contains($0) }))
        writer.raw("uncheckedIds", idList(absent.filter { found.unchecked.contains($0) }))
        writer.freshness(found.freshness)
        return (writer.finish(), found.freshness)
    }

    /// A location or an episode with the characters it links to (fetched in one call if not cached).
    private static func detail(
        _ resource: RecordKind, id: Int, key: String, linked: RecordKind, linkedKey: String,
        catalog: CharacterCatalog
    ) async throws -> (ByteBuffer, Freshness) {
        let answer = try await catalog.record(resource, id: id)
        let links = await catalog.resolve(linked, ids: answer.value.related)
        var writer = JSONObjectWriter()
        writer.raw(key, answer.value.json)
        writer.array(linkedKey, answer.value.related.compactMap { links.records[$0]?.json })
        let freshness = merge(answer.freshness, links.upstreamError)
        writer.freshness(freshness)
        return (writer.finish(), freshness)
    }

    /// A record's freshness, made stale when resolving its links failed.
    private static func merge(_ freshness: Freshness, _ linkError: UpstreamError?) -> Freshness {
        guard let linkError else { return freshness }
        var merged = freshness
        merged.stale = true
        merged.upstreamError = merged.upstreamError ?? linkError.description
        return merged
    }
}

extension EpisodeSummary {
    /// `{"id":…,"code":"…","name":"…","airDate":"…"}`, written straight into `buffer`.
    func writeJSON(into buffer: inout ByteBuffer) {
        buffer.writeStaticString("{\"id\":")
        buffer.writeString(String(id))
        buffer.writeStaticString(",\"code\":")
        JSONText.writeQuoted(code, into: &buffer)
        buffer.writeStaticString(",\"name\":")
        JSONText.writeQuoted(name, into: &buffer)
        buffer.writeStaticString(",\"airDate\":")
        JSONText.writeQuoted(airDate, into: &buffer)
        buffer.writeStaticString("}")
    }
}
