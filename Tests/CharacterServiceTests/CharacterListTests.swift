import Foundation
import Messaging
import NIOCore
import RnmAPI
import TestSupport
import Testing

@Suite("CharacterService lists and records", .cleansUp)
struct CharacterListTests {
    @Test("characters.list page 1: 20 characters of 493, fields mapped, URLs reduced to ids, one upstream request")
    func firstPage() async throws {
        let harness = try await CharacterHarness.start()
        let page = try await harness.call(RPCMethods.charactersList, .init())
        #expect(page.page == 1 && page.pages == 25 && page.count == 493)
        #expect(page.items.map(\.id) == Array(1...20))
        let rick = try #require(page.items.first)
        #expect(
            rick.name == "Rick Sanchez" && rick.status == "Alive" && rick.species == "Human" && rick.gender == "Male")
        #expect(rick.origin == PlaceRef(name: "Earth (C-137)", id: 1))
        #expect(rick.location == PlaceRef(name: "Earth (Replacement Dimension)", id: 20))
        #expect(rick.episodeIds == Array(1...31))
        #expect(rick.created == "2017-11-04T18:48:46.250Z")
        let adjudicator = try await harness.call(RPCMethods.charactersGet, .init(id: 8)).character
        #expect(adjudicator.origin == PlaceRef(name: "unknown", id: nil))
        #expect(page.freshness.source == .upstream && !page.freshness.stale)
        // Character 8 came with the page: served from the cache; only its episodes were fetched.
        #expect(harness.requests("character").count == 1)
        #expect(harness.requests("episode/").count == 1)
        try await harness.stop()
    }

    @Test("filters are sent percent-encoded and answer like the API; gender matches from the start")
    func filters() async throws {
        let harness = try await CharacterHarness.start()
        let alive = try await harness.call(RPCMethods.charactersList, .init(status: "ALIVE"))
        #expect(alive.count == 281)
        let male = try await harness.call(RPCMethods.charactersList, .init(gender: "male"))
        #expect(male.count == 372)  // not the 73 "Female"
        let named = try await harness.call(RPCMethods.charactersList, .init(name: "rick sanchez"))
        #expect(named.items.allSatisfy { $0.name.lowercased().contains("rick sanchez") })
        #expect(harness.upstream.requests.contains { $0.target.contains("name=rick%20sanchez") })
        let symbols = try await harness.call(RPCMethods.charactersList, .init(name: "a&b=c+d"))
        #expect(symbols.items.isEmpty && symbols.count == 0)
        #expect(harness.upstream.requests.last?.query["name"] == "a&b=c+d")
        // UTF-8 byte by byte; the unreserved characters as they are (filters are sent lowercased).
        _ = try await harness.call(RPCMethods.charactersList, .init(name: "Ñandú ~.-_"))
        let sent = harness.upstream.requests.last?.target ?? ""
        #expect(sent.hasSuffix("name=%C3%B1and%C3%BA%20~.-_"), "\(sent)")
        let planets = try await harness.call(RPCMethods.locationsList, .init(type: "planet"))
        #expect(planets.items.allSatisfy { $0.type.lowercased().contains("planet") } && planets.count > 0)
        let seasonOne = try await harness.call(RPCMethods.episodesList, .init(episode: "S01"))
        #expect(seasonOne.count == 11)
        #expect(seasonOne.items.first?.code == "S01E01" && seasonOne.items.first?.airDate == "December 2, 2013")
        try await harness.stop()
    }

    @Test(
        "a page past the end and a filter with no match are empty pages, in both server styles",
        arguments: [RickAndMortyFixtures.EmptyStyle.notFound, .nullInfo])
    func emptyPages(style: RickAndMortyFixtures.EmptyStyle) async throws {
        let harness = try await CharacterHarness.start()
        harness.fixtures.emptyStyle = style
        _ = try await harness.call(RPCMethods.charactersList, .init())
        let past = try await harness.call(RPCMethods.charactersList, .init(page: 26))
        #expect(past.items.isEmpty && past.page == 26 && past.pages == 25 && past.count == 493)
        let none = try await harness.call(RPCMethods.charactersList, .init(name: "zzzz-nobody"))
        #expect(none.items.isEmpty && none.count == 0 && none.pages == 0)
        #expect(!none.freshness.stale)
        try await harness.stop()
    }

    @Test(
        "invalid params are -32602 and never reach the upstream",
        arguments: [
            ("characters.list", #"{"page":0}"#), ("characters.list", #"{"status":"zombie"}"#),
            ("characters.list", #"{"gender":"robot"}"#), ("characters.get", #"{"id":"abc"}"#),
            ("characters.get", #"{"id":-1}"#), ("characters.get", #"{}"#), ("characters.getMany", #"{"ids":[]}"#),
            ("characters.getMany", #"{"ids":[\#((1...101).map(String.init).joined(separator: ","))]}"#),
            ("locations.list", #"{"page":-3}"#), ("episodes.get", #"{"id":0}"#), ("favorites.add", #"{"id":"x"}"#),
        ])
    func invalidParams(method: String, params: String) async throws {
        let harness = try await CharacterHarness.start()
        let reply = try await harness.client.call(
            method: method, params: ByteBuffer(string: params), timeout: .seconds(10))
        let error = try JSONCoding.decode(RPCError.self, from: try #require(reply.error))
        #expect(error.code == .invalidParams)
        #expect(harness.upstream.requestCount == 0)
        try await harness.stop()
    }

    @Test("characters.get: cold costs 2 upstream requests (character, then its episodes in one call), warm costs 0")
    func getCounts() async throws {
        let harness = try await CharacterHarness.start()
        let cold = try await harness.call(RPCMethods.charactersGet, .init(id: 1))
        #expect(cold.character.name == "Rick Sanchez")
        #expect(cold.episodes.count == 31)
        #expect(
            cold.episodes.first == EpisodeSummary(id: 1, code: "S01E01", name: "Pilot", airDate: "December 2, 2013"))
        #expect(harness.upstream.requestCount == 2)
        #expect(harness.requests("episode/").count == 1)
        let warm = try await harness.call(RPCMethods.charactersGet, .init(id: 1))
        #expect(warm.character == cold.character && warm.episodes == cold.episodes)
        #expect(warm.freshness.source == .cache)
        #expect(harness.upstream.requestCount == 2)
        // Morty shares his episodes with Rick: all cached, one request for him alone.
        _ = try await harness.call(RPCMethods.charactersGet, .init(id: 2))
        #expect(harness.upstream.requestCount == 3)
        try await harness.stop()
    }

    @Test("10 concurrent identical cold gets make 1 character request")
    func singleFlight() async throws {
        let harness = try await CharacterHarness.start()
        // Most join the first fetch in flight; the ones that miss the cache as it ends find
        // the character stored instead of fetching again, however the machine is loaded.
        harness.upstream.latency = .milliseconds(150)
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<10 {
                group.addTask { try await harness.call(RPCMethods.charactersGet, .init(id: 3)).character.name }
            }
            for try await name in group { #expect(name == "Summer Smith") }
        }
        #expect(harness.requests("character/").count == 1)
        try await harness.stop()
    }

    @Test("an unknown id is -32001")
    func notFound() async throws {
        let harness = try await CharacterHarness.start()
        let error = await harness.error { try await harness.call(RPCMethods.charactersGet, .init(id: 9999)) }
        #expect(error?.code == .notFound)
        #expect(error?.message == "character 9999 not found")
        let location = await harness.error { try await harness.call(RPCMethods.locationsGet, .init(id: 500)) }
        #expect(location?.code == .notFound)
        try await harness.stop()
    }

    @Test("getMany answers in the order asked, with the missing ids, in one upstream call")
    func getMany() async throws {
        let harness = try await CharacterHarness.start()
        let batch = try await harness.call(RPCMethods.charactersGetMany, .init(ids: [3, 1, 9999, 2, 3]))
        #expect(batch.items.map(\.id) == [3, 1, 2])
        #expect(batch.missingIds == [9999])
        #expect(harness.upstream.requestCount == 1)
        try await harness.stop()
    }

    @Test("ids the upstream said do not exist are not asked again within the max age (issue 29)")
    func absentIDsRemembered() async throws {
        let harness = try await CharacterHarness.start()
        // 1,100 ids past the 826 characters: 11 upstream requests of 100 ids the first time.
        let absent = Array(1001...2100)
        for part in IDsParams.parts(of: absent) {
            #expect(try await harness.call(RPCMethods.charactersGetMany, part).missingIds == part.ids)
        }
        let first = harness.upstream.requestCount
        #expect(first == 11)
        // Again, in other groupings (no reply cached for them), and one by one: not asked.
        for part in IDsParams.parts(of: Array(absent.reversed())) {
            #expect(try await harness.call(RPCMethods.charactersGetMany, part).missingIds == part.ids)
        }
        let single = await harness.error { try await harness.call(RPCMethods.charactersGet, .init(id: 1500)) }
        #expect(single?.code == .notFound)
        #expect(harness.upstream.requestCount == first)
        try await harness.stop()
    }

    @Test("locations.get and episodes.get resolve their characters in one multi-id call")
    func details() async throws {
        let harness = try await CharacterHarness.start()
        let earth = try await harness.call(RPCMethods.locationsGet, .init(id: 1))
        #expect(earth.location.name == "Earth (C-137)")
        #expect(earth.residents.map(\.id) == earth.location.residentIds)
        #expect(!earth.residents.isEmpty)
        #expect(harness.upstream.requestCount == 2)
        let pilot = try await harness.call(RPCMethods.episodesGet, .init(id: 1))
        #expect(pilot.episode.code == "S01E01")
        #expect(pilot.characters.map(\.id) == pilot.episode.characterIds)
        #expect(harness.upstream.requestCount <= 4)
        try await harness.stop()
    }
}
