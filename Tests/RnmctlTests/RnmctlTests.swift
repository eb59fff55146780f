import Foundation
import Messaging
import NIOCore
import RnmAPI
import TestSupport
import Testing

@Suite("rnmctl end to end", .serialized, .cleansUp)
struct RnmctlTests {
    @Test("characters list: full names in a table at 40 columns, the page line, and --json in the protocol's shape")
    func charactersList() async throws {
        let system = try await RnmSystem.start()
        let human = try await system.rnmctl("characters", "list", "--page", "8")
        #expect(human.status == 0, "\(human.stderr)")
        let tableLines: [Substring] = human.stdout.split(separator: "\n").dropLast()
        #expect(tableLines.allSatisfy { $0.count <= 40 }, "the table fits 40 columns")
        #expect(
            human.stdout.contains("Hole in the Wall Where the Men Can") && human.stdout.contains("See it All"),
            "wrapped, never cut")
        #expect(human.stdout.contains("page 8 of 25 (493 characters) — next: rnmctl characters list --page 9"))
        let wide = try await system.rnmctl("characters", "list", "--page", "8", "--wide")
        #expect(wide.stdout.contains("Hole in the Wall Where the Men Can See it All"))
        #expect(wide.stdout.contains("NAME") && wide.stdout.contains("STATUS"))
        let refreshed = try await system.rnmctl("characters", "refresh", "--page", "2", "--gender", "female")
        #expect(refreshed.status == 0)
        #expect(
            refreshed.stdout.contains(
                "page 2 of 4 (73 characters) — next: rnmctl characters refresh --gender female --page 3"))
        let json = try await system.rnmctl("characters", "list", "--status", "dead", "--json")
        #expect(json.status == 0)
        let page = try JSONDecoder().decode(Fresh<Page<Character>>.self, from: Data(json.stdout.utf8))
        #expect(page.count == 147 && page.items.allSatisfy { $0.status == "Dead" })
        #expect(json.stderr.isEmpty)
        try await system.stop()
    }

    @Test("characters show: labelled fields and the episodes by code and name")
    func characterShow() async throws {
        let system = try await RnmSystem.start()
        let output = try await system.rnmctl("characters", "show", "1")
        #expect(output.status == 0)
        for expected in [
            "Rick Sanchez (#1)", "Status:", "Alive", "Species:", "Human", "Gender:", "Male", "Origin:", "Earth (C-137)",
            "Location:", "Earth (Replacement Dimension)", "Created:", "2017-11-04T18:48:46.250Z",
            "Episodes (31):", "S01E01", "Pilot", "S03E10", "The Rickchurian Mortydate",
        ] {
            #expect(output.stdout.contains(expected), "missing \(expected)")
        }
        let json = try await system.rnmctl("characters", "show", "1", "--json")
        let detail = try JSONDecoder().decode(Fresh<CharacterDetail>.self, from: Data(json.stdout.utf8))
        #expect(detail.episodes.count == 31)
        try await system.stop()
    }

    @Test("locations, episodes, stats, favorites and universities print what users look for")
    func otherCommands() async throws {
        let system = try await RnmSystem.start()
        let locations = try await system.rnmctl("locations", "list", "--page", "3", "--wide")
        #expect(locations.stdout.contains("Earth (Giant Telepathic Spiders Dimension)"))
        #expect(locations.stdout.contains("page 3 of 4"))
        let location = try await system.rnmctl("locations", "show", "1")
        #expect(location.stdout.contains("Earth (C-137)") && location.stdout.contains("Residents ("))
        let episodes = try await system.rnmctl("episodes", "list", "--episode", "S02")
        #expect(episodes.stdout.contains("S02E01") && episodes.stdout.contains("A Rickle in Time"))
        let episode = try await system.rnmctl("episodes", "show", "1")
        #expect(episode.stdout.contains("S01E01 Pilot") && episode.stdout.contains("Rick Sanchez"))
        let stats = try await system.rnmctl("characters", "stats")
        #expect(stats.stdout.contains("alive") && stats.stdout.contains("281") && stats.stdout.contains("493"))
        #expect(try await system.rnmctl("favorites", "add", "3").status == 0)
        let favorites = try await system.rnmctl("favorites", "list")
        #expect(favorites.stdout.contains("Summer Smith") && favorites.stdout.contains("1 favorite"))
        #expect(try await system.rnmctl("favorites", "remove", "3").stdout.contains("is no longer a favorite"))
        let universities = try await system.rnmctl("universities", "list", "--wide")
        #expect(universities.stdout.contains("37 universities in United Arab Emirates"))
        // At 40 columns a long name wraps; its continuation is indented, never a row of its own.
        let narrow = try await system.rnmctl("universities", "list").stdout.split(separator: "\n")
        let first = try #require(narrow.firstIndex { $0.hasPrefix("Mohamed bin Zayed University") })
        #expect(narrow[first + 1].hasPrefix("  ") && !narrow[first + 1].hasPrefix("   "), "\(narrow[first + 1])")
        #expect(narrow.allSatisfy { $0.count <= 40 })
        #expect(universities.stdout.contains("Mohamed bin Zayed University of Artificial Intelligence (MBZUAI)"))
        let university = try await system.rnmctl("universities", "show", "khalifa university")
        #expect(university.stdout.contains("Khalifa University") && university.stdout.contains("Domains:"))
        let refreshed = try await system.rnmctl("universities", "refresh", "--country", "Japan", "--json")
        #expect(
            try JSONDecoder().decode(Fresh<UniversityList>.self, from: Data(refreshed.stdout.utf8)).country == "Japan")
        let status = try await system.rnmctl("status")
        #expect(
            status.stdout.contains("gateway: up") && status.stdout.contains("characters: up")
                && status.stdout.contains("universities: up"))
        let call = try await system.rnmctl("call", "characters.getMany", #"{"ids":[2,1]}"#)
        #expect(call.stdout.contains(#""missingIds":[]"#))
        try await system.stop()
    }

    @Test("characters image writes the avatar's bytes")
    func image() async throws {
        let system = try await RnmSystem.start()
        let file = system.directory + "/morty.png"
        let output = try await system.rnmctl("characters", "image", "2", "--output", file)
        #expect(output.status == 0)
        #expect(output.stdout.contains("image/png"))
        #expect(FileManager.default.contents(atPath: file) == RickAndMortyFixtures.avatar(2))
        try await system.stop()
    }

    @Test("characters sync prints progress lines off a terminal, then the summary")
    func syncProgress() async throws {
        let system = try await RnmSystem.start()
        let output = try await system.rnmctl("characters", "sync")
        #expect(output.status == 0)
        let lines = output.stderr.split(separator: "\n").filter { $0.hasPrefix("progress ") }
        #expect(lines.count >= 20)
        #expect(lines.last?.hasPrefix("progress 524/524") == true)
        #expect(output.stdout.contains("synced 493 characters, 76 locations, 31 episodes"))
        try await system.stop()
    }

    @Test("a stale answer prints a one-line offline notice on stderr")
    func staleNotice() async throws {
        let system = try await RnmSystem.start()
        _ = try await system.rnmctl("characters", "list")
        system.characterUpstream.fault = .status(503)
        let output = try await system.rnmctl("characters", "list")
        #expect(output.status == 0)
        let notice = output.stderr.split(separator: "\n")
        #expect(notice.count == 1)
        #expect(
            notice.first?.contains("offline") == true && notice.first?.contains("cached at") == true
                && notice.first?.contains("503") == true)
        #expect(output.stdout.contains("Rick Sanchez"))
        // With --json, the one JSON document says it, and stderr stays empty.
        let json = try await system.rnmctl("characters", "list", "--json")
        #expect(json.status == 0 && json.stderr.isEmpty, "\(json.stderr)")
        let page = try JSONDecoder().decode(Fresh<Page<Character>>.self, from: Data(json.stdout.utf8))
        #expect(page.freshness.stale && page.freshness.upstreamError?.contains("503") == true)
        try await system.stop()
    }

    @Test("exit codes: 64 invalid, 66 not found, 69 unavailable, 75 timeout; errors as JSON with --json")
    func exitCodes() async throws {
        let system = try await RnmSystem.start()
        #expect(try await system.rnmctl("characters", "list", "--page", "0").status == 64)
        #expect(try await system.rnmctl("characters", "list", "--status", "zombie").status == 64)
        #expect(try await system.rnmctl("characters", "show").status == 64)  // usage
        let missing = try await system.rnmctl("characters", "show", "9999")
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("character 9999 not found"))
        let missingJSON = try await system.rnmctl("characters", "show", "9999", "--json")
        #expect(missingJSON.stdout.isEmpty)
        let error = try JSONCoding.decode(CLIErrorShape.self, from: ByteBuffer(string: missingJSON.stderr))
        #expect(error.error.code == .notFound && error.exitCode == 66)
        system.universityUpstream.fault = .status(500)
        #expect(try await system.rnmctl("universities", "list", "--country", "Japan").status == 69)
        system.characterUpstream.fault = .hang
        #expect(try await system.rnmctl("characters", "show", "42", "--timeout", "0.3").status == 75)
        // The upstream comes back and answers what it held: the service has nothing left to
        // drain when it is stopped (its drain would otherwise wait up to 7 s for the request).
        system.characterUpstream.fault = nil
        try await system.stop()
    }

    @Test("Gateway not running: one line naming the socket and how to start, exit 69")
    func gatewayDown() async throws {
        let socket = temporaryDirectory() + "/gateway.sock"
        let output = try await ChildProcess.run("rnmctl", ["characters", "list", "--socket", socket])
        #expect(output.status == 69)
        let lines = output.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains(socket) == true && lines.first?.contains("docker-compose up -d") == true)
        #expect(output.stdout.isEmpty)
    }

    @Test("protocol and internal errors from the Gateway exit 76 and 70")
    func protocolAndInternal() async throws {
        struct Failing: RPCHandler {
            func handle(_ request: RPCRequest, context: RPCRequestContext) async throws -> RPCReply {
                if request.method == "characters.list" {
                    throw RPCError(.invalidRequest, "invalid request", service: "gateway")
                }
                throw RPCError(.internalError, "internal error", service: "gateway")
            }
        }
        let server = try await RunningServer.start(handler: Failing())
        #expect(
            try await ChildProcess.run("rnmctl", ["characters", "list", "--socket", server.socketPath]).status == 76)
        #expect(
            try await ChildProcess.run("rnmctl", ["characters", "stats", "--socket", server.socketPath]).status == 70)
        try await server.stop()
    }

    @Test("--help lists the exit codes")
    func help() async throws {
        let output = try await ChildProcess.run("rnmctl", ["--help"])
        #expect(output.stdout.contains("64 usage or invalid params") && output.stdout.contains("75 timed out"))
    }
}

/// rnmctl's one JSON error shape: `{"error":{"code","message","data"},"exitCode"}`.
struct CLIErrorShape: Decodable {
    var error: RPCError
    var exitCode: Int32
}
