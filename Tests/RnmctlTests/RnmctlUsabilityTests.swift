import Foundation
import Messaging
import NIOCore
import RnmAPI
import TestSupport
import Testing

/// What a new user tripped over (issue 16), item by item, on the real processes.
@Suite("rnmctl for people", .serialized, .cleansUp)
struct RnmctlUsabilityTests {
    @Test("1. global options anywhere on the line, as the README and the healthchecks write them")
    func globalOptionsAnywhere() async throws {
        try await RnmSystem.with { system in
            let health = try await ChildProcess.run(
                "rnmctl", ["--socket", system.socket(.characters), "--timeout", "2", "call", "characters.health"])
            #expect(health.status == 0 && health.stdout.contains(#""service":"characters""#), "\(health.stderr)")
            let json = try await system.rnmctl("--json", "characters", "show", "1")
            #expect(json.status == 0, "\(json.stderr)")
            #expect(
                try JSONDecoder().decode(Fresh<CharacterDetail>.self, from: Data(json.stdout.utf8)).character.id == 1)
            let middle = try await system.rnmctl("characters", "--json", "show", "1")
            #expect(middle.status == 0 && middle.stdout.hasPrefix("{"))
        }
    }

    @Test("2. the next-page hint repeats the exact query, and running it shows that query's next page")
    func nextHint() async throws {
        try await RnmSystem.with { system in
            let first = try await system.rnmctl("characters", "list", "--status", "dead", "--gender", "male")
            let line = try #require(first.stdout.split(separator: "\n").last)
            let command = try #require(line.components(separatedBy: "next: ").last)
            #expect(command == "rnmctl characters list --status dead --gender male --page 2", "\(line)")
            let words = command.split(separator: " ").dropFirst().map(String.init)
            let second = try await system.rnmctl(arguments: words + ["--json"])
            let page = try JSONDecoder().decode(Fresh<Page<Character>>.self, from: Data(second.stdout.utf8))
            #expect(
                page.page == 2 && !page.items.isEmpty
                    && page.items.allSatisfy { $0.status == "Dead" && $0.gender == "Male" })
            let withSocket = try await system.rnmctl(
                "--socket", system.gatewaySocket, "locations", "list", "--type", "planet")
            #expect(
                withSocket.stdout.contains(
                    "next: rnmctl locations list --socket \(system.gatewaySocket) --type planet --page 2"),
                "the hint keeps the socket: \(withSocket.stdout.suffix(200))")
        }
    }

    @Test("3. --timeout is checked (no crash on nan, inf, 1e10, 0, -1), and progress restarts it")
    func timeouts() async throws {
        try await RnmSystem.with { system in
            for bad in ["nan", "inf", "1e10", "0", "-1"] {
                let output = try await system.rnmctl("characters", "list", "--timeout", bad)
                #expect(output.status == 64, "--timeout \(bad): \(output.status)")
                #expect(
                    output.stderr.contains("--timeout") && output.stderr.count < 500,
                    "--timeout \(bad): \(output.stderr)")
            }
            // Each upstream request takes 1 s; the whole sync takes several seconds: a 3 s timeout
            // holds only because every progress notification restarts it (2 s of room a step for
            // a busy machine). (A first sync
            // fetches the avatars, which a second one does not fetch again.)
            #expect(try await system.rnmctl("characters", "sync").status == 0)
            system.characterUpstream.latency = .seconds(1)
            let sync = try await system.rnmctl("characters", "sync", "--timeout", "3")
            #expect(sync.status == 0, "\(sync.stderr.suffix(300))")
            #expect(sync.stdout.contains("synced 493 characters"))
        }
    }

    @Test("4. tables fit the terminal width without cutting a name; --wide shows every column")
    func widths() async throws {
        try await RnmSystem.with { system in
            let names = RickAndMortyFixtures.records("character").prefix(20).compactMap { $0["name"] as? String }
            for columns in ["80", "40"] {
                for arguments in [
                    ["characters", "list"], ["locations", "list"],
                    ["universities", "list", "--country", "United States"],
                ] {
                    let output = try await system.rnmctl(arguments: arguments, environment: ["COLUMNS": columns])
                    #expect(output.status == 0)
                    let table = output.stdout.split(separator: "\n").dropLast()
                    let widest = table.map(\.count).max() ?? 0
                    #expect(
                        widest <= Int(columns)!,
                        "\(arguments.joined(separator: " ")) at \(columns): a line of \(widest)")
                }
            }
            let list = try await system.rnmctl(arguments: ["characters", "list"], environment: ["COLUMNS": "40"])
            let words = Set(list.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
            for name in names {
                #expect(name.split(separator: " ").allSatisfy { words.contains(String($0)) }, "\(name) is cut")
            }
            let wide = try await system.rnmctl(
                arguments: ["characters", "list", "--wide"], environment: ["COLUMNS": "40"])
            #expect(wide.stdout.contains("LOCATION") && wide.stdout.contains("SPECIES"))
        }
    }

    @Test("5. images: to stdout with -o -, into a folder, a note when the name says another type, --json, 73 and 74")
    func images() async throws {
        try await RnmSystem.with { system in
            let folder = system.directory + "/pictures"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let toFolder = try await system.rnmctl("characters", "image", "2", "-o", folder)
            #expect(toFolder.status == 0)
            #expect(FileManager.default.contents(atPath: folder + "/2.png") == RickAndMortyFixtures.avatar(2))
            let misnamed = try await system.rnmctl("characters", "image", "2", "-o", system.directory + "/summer.jpeg")
            #expect(misnamed.status == 0 && misnamed.stderr.contains("image/png"))
            let json = try await system.rnmctl(
                "characters", "image", "3", "-o", system.directory + "/three.png", "--json")
            #expect(json.status == 0 && json.stdout.contains(#""path":"#))
            #expect(FileManager.default.fileExists(atPath: system.directory + "/three.png"))
            let stdout = try await system.rnmctl(
                arguments: ["characters", "image", "2", "-o", "-"], currentDirectory: system.directory)
            #expect(
                stdout.status == 0 && stdout.stdoutBytes == RickAndMortyFixtures.avatar(2),
                "the avatar's bytes on stdout")
            #expect(!FileManager.default.fileExists(atPath: system.directory + "/-"))
            let stdoutJSON = try await system.rnmctl("--json", "characters", "image", "2", "-o", "-")
            #expect(
                stdoutJSON.stdoutBytes == RickAndMortyFixtures.avatar(2), "with -o - the bytes alone, even with --json")
            let cannotCreate = try await system.rnmctl("characters", "image", "1", "-o", "/proc/rnm-no-such/x.png")
            #expect(cannotCreate.status == 73, "\(cannotCreate.stderr)")
            let full = try await system.rnmctl("characters", "image", "1", "-o", "/dev/full")
            #expect(full.status == 74, "\(full.stderr)")
        }
    }

    @Test("6. status: exit 69 with a service down; a failing upstream is shown, not a failure")
    func status() async throws {
        try await RnmSystem.with { system in
            system.characterUpstream.fault = .status(503)
            _ = try await system.rnmctl("characters", "show", "7")
            let degraded = try await system.rnmctl("status")
            #expect(degraded.status == 0, "\(degraded.stderr)")
            #expect(degraded.stdout.contains("failing since") && degraded.stdout.contains("503"), "\(degraded.stdout)")
            system.kill(.universities)
            try await waitUntil(10, "universities reported down") {
                (try? await system.rnmctl("status"))?.status == 69
            }
            let down = try await system.rnmctl("status")
            #expect(down.stdout.contains("universities: down"))
        }
    }

    @Test(
        """
        7. universities: a hint for a country name the upstream does not know, counts for a name filter, the other \
        country
        """
    )
    func universityHints() async throws {
        try await RnmSystem.with { system in
            let uae = try await system.rnmctl("universities", "list", "--country", "UAE")
            #expect(uae.status == 0 && uae.stdout.contains("whole country names"), "\(uae.stdout)")
            let none = try await system.rnmctl("universities", "list", "--name", "xyz")
            #expect(none.stdout.contains("37 universities there"), "\(none.stdout)")
            // Before a sync a name is looked for in the default country only, and it says so.
            #expect(none.stdout.contains("only United Arab Emirates, the default country, was searched"))
            _ = try await system.rnmctl("universities", "list", "--country", "Japan")
            let elsewhere = try await system.rnmctl("universities", "show", "Kyoto University")
            #expect(elsewhere.status == 66 && elsewhere.stderr.contains("Japan"), "\(elsewhere.stderr)")
        }
    }

    @Test(
        """
        issue 38: without the upstreams, one sentence a person reads: no libcurl words, the country nobody typed \
        named as the default with the way to need none, nothing promised from an empty cache, no progress lines \
        before --json's error, usage errors in rnmctl's style
        """
    )
    func firstHourWording() async throws {
        // Nothing listens at either upstream's address: a stopped upstream, as a user meets it.
        let dead = (try ReservedPort(), try ReservedPort())
        defer { [dead.0, dead.1].forEach { $0.release() } }
        let settings = [
            "RNM_UPSTREAM_TIMEOUT_MS": "2000", "RNM_RICKANDMORTY_URL": "http://127.0.0.1:\(dead.0.port)/api",
            "RNM_UNIVERSITIES_URL": "http://127.0.0.1:\(dead.1.port)",
        ]
        try await RnmSystem.with(settings: settings) { system in
            let show = try await system.rnmctl("universities", "show", "Khalifa University")
            #expect(show.status == 69, "\(show.stderr)")
            #expect(show.stderr.contains("(the default country: none was given)"), "\(show.stderr)")
            #expect(show.stderr.contains("`universities sync`"), "\(show.stderr)")
            #expect(show.stderr.contains("nothing answers at 127.0.0.1:"), "\(show.stderr)")
            #expect(!show.stderr.contains("Couldn't connect") && !show.stderr.contains("Failed to connect"))
            let typed = try await system.rnmctl("universities", "list", "--country", "Japan")
            #expect(!typed.stderr.contains("default country"), "\(typed.stderr)")
            _ = try await system.rnmctl("characters", "show", "1")
            let status = try await system.rnmctl("status")
            #expect(status.stdout.contains("nothing is cached yet"), "\(status.stdout)")
            #expect(!status.stdout.contains("answers come from the cache"), "\(status.stdout)")
            let sync = try await system.rnmctl("--json", "characters", "sync")
            #expect(sync.status == 69 && sync.stderr.hasPrefix("{\"error\":"), "\(sync.stderr)")
            #expect(sync.stderr.split(separator: "\n").count == 1, "one JSON line: \(sync.stderr)")
            let usage = try await system.rnmctl("characters", "list", "--page", "abc")
            #expect(
                usage.status == 64 && usage.stderr.hasPrefix("rnmctl: the value 'abc' is invalid"), "\(usage.stderr)")
            #expect(usage.stderr.contains("Usage: rnmctl characters list"), "the usage lines follow")
        }
    }

    @Test("8. suggestions, aliases, --version, examples in every help, codes for episodes")
    func discoverability() async throws {
        try await RnmSystem.with { system in
            let typo = try await system.rnmctl("charcters", "list")
            #expect(typo.status == 64 && typo.stderr.contains("Did you mean") && typo.stderr.contains("characters"))
            #expect(try await system.rnmctl("characters", "ls").status == 0)
            #expect(try await system.rnmctl("characters", "get", "1").stdout.contains("Rick Sanchez"))
            #expect(try await system.rnmctl("favorites", "add", "1").status == 0)
            #expect(try await system.rnmctl("favorites", "rm", "1").status == 0)
            #expect(try await system.rnmctl("--version").stdout.contains(rnmVersion))
            let top = try await system.rnmctl("--help")
            for expected in ["--json", "--socket", "--timeout", "RNM_GATEWAY_SOCKET", "Examples:"] {
                #expect(top.stdout.contains(expected), "top-level help lacks \(expected)")
            }
            for command in [
                ["characters", "list"], ["characters", "show"], ["locations", "list"], ["episodes", "show"],
                ["favorites", "add"], ["universities", "list"], ["status"], ["call"],
            ] {
                #expect(
                    try await system.rnmctl(arguments: command + ["--help"]).stdout.contains("Examples:"),
                    "\(command) help")
            }
            let byCode = try await system.rnmctl("episodes", "show", "S01E01")
            #expect(byCode.status == 0 && byCode.stdout.contains("Pilot"), "\(byCode.stderr)")
            let help = try await system.rnmctl("help", "characters")
            #expect(help.status == 0 && help.stdout.contains("SUBCOMMANDS"), "\(help.stderr)")
            let afterDashes = try await system.rnmctl("--json", "characters", "show", "--", "1")
            #expect(afterDashes.status == 0 && afterDashes.stdout.hasPrefix("{"), "\(afterDashes.stderr)")
        }
    }

    @Test("10. one long name wraps before other columns are left out: at 60 and 80 columns the status stays")
    func longNameWraps() async throws {
        try await RnmSystem.with { system in
            for columns in ["60", "80"] {
                let output = try await system.rnmctl(
                    arguments: ["characters", "list", "--page", "8"], environment: ["COLUMNS": columns])
                let lines = output.stdout.split(separator: "\n")
                #expect(
                    output.status == 0 && lines.first?.contains("STATUS") == true,
                    "COLUMNS=\(columns): \(output.stdout)")
                #expect(lines.dropLast().allSatisfy { $0.count <= Int(columns)! }, "COLUMNS=\(columns)")
                #expect(output.stdout.contains("Hole in the Wall") && output.stdout.contains("See it All"), "never cut")
            }
        }
    }

    @Test("9. messages in the CLI's terms, one JSON error shape, plurals, a page past the end")
    func messages() async throws {
        try await RnmSystem.with { system in
            let missing = try await system.rnmctl("characters", "show", "9999")
            #expect(!missing.stderr.contains("-32001") && !missing.stderr.contains("code "))
            let verbose = try await system.rnmctl("characters", "show", "9999", "--verbose")
            #expect(verbose.stderr.contains("-32001"))
            let page = try await system.rnmctl("characters", "list", "--page", "0")
            #expect(page.stderr.contains("--page") && !page.stderr.contains("\"page\""), "\(page.stderr)")
            let zero = try await system.rnmctl("characters", "show", "0")
            #expect(zero.status == 64 && zero.stderr.contains("<id> must be from 1"), "\(zero.stderr)")
            // A negative number is a value, not an option, wherever it is.
            let negative = try await system.rnmctl("characters", "show", "-1")
            #expect(
                negative.status == 64 && negative.stderr.contains("<id> must be from 1")
                    && negative.stderr.contains("-1"), "\(negative.stderr)")
            let negativePage = try await system.rnmctl("characters", "list", "--page", "-2", "--json")
            #expect(negativePage.status == 64 && negativePage.stderr.contains("page"), "\(negativePage.stderr)")
            for arguments in [
                ["characters", "show", "9999", "--json"], ["characters", "show", "abc", "--json"],
                ["characters", "list", "--page", "0", "--json"], ["call", "nope.nope", "--json"],
                ["--json", "charcters", "list"], ["characters", "list", "--timeout", "0", "--json"],
            ] {
                let output = try await system.rnmctl(arguments: arguments)
                let shape = try? JSONSerialization.jsonObject(with: Data(output.stderr.utf8)) as? [String: Any]
                let error = shape?["error"] as? [String: Any]
                #expect(
                    error?["message"] is String && error?["data"] is [String: Any]
                        && error?.keys.contains("code") == true,
                    "\(arguments): \(output.stderr)")
                #expect(
                    (shape?["exitCode"] as? Int).map(Int32.init) == output.status && output.status != 0, "\(arguments)")
            }
            let past = try await system.rnmctl("characters", "list", "--page", "26")
            #expect(
                past.status == 66 && past.stderr.contains("--page 25") && !past.stdout.contains("page 26 of 25"),
                "\(past.stderr)")
            #expect(try await system.rnmctl("favorites", "add", "4").stdout == "character 4 is a favorite\n")
            #expect(try await system.rnmctl("favorites", "list").stdout.contains("1 favorite\n"))
            // What a change did, not "(removed, if it was one)".
            #expect(try await system.rnmctl("favorites", "add", "4").stdout.contains("was a favorite already"))
            #expect(try await system.rnmctl("favorites", "remove", "5").stdout.contains("was not a favorite"))
            #expect(try await system.rnmctl("favorites", "remove", "4").stdout.contains("is no longer a favorite"))
        }
    }

    @Test(
        """
        10. a man page made from the command definitions, and completions that offer --status and --gender values and \
        files for -o
        """
    )
    func completions() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let man = try String(contentsOf: root.appendingPathComponent("docs/man/rnmctl.1"), encoding: .utf8)
        #expect(man.contains("Generated by swift-argument-parser"))
        // Tidied (scripts/testing/man-tidy.py): a blank line is an mdoc warning on every `man`.
        #expect(!man.contains("\n\n"), "a blank line in the man page (scripts/man tidies them)")
        for command in ["characters", "locations", "episodes", "favorites", "universities", "status", "call"] {
            #expect(man.contains(".It Em \(command)\n"), "the man page covers \(command)")
        }
        // Up to date with the commands: both syncs are in it (scripts/man regenerates it).
        #expect(man.components(separatedBy: ".It Em sync\n").count - 1 == 2, "characters sync and universities sync")
        let bash = try await ChildProcess.run("rnmctl", ["--generate-completion-script", "bash"])
        #expect(bash.stdout.contains("'alive'$'\\n''dead'$'\\n''unknown'"))
        #expect(bash.stdout.contains("'female'$'\\n''male'$'\\n''genderless'$'\\n''unknown'"))
        #expect(bash.stdout.contains("'--output'|'-o')"))
    }

    @Test(
        """
        every rnmctl command line in README.md and the guides in docs/, and every healthcheck in docker-compose.yml, \
        succeeds: online, and offline after a sync
        """
    )
    func documentedCommands() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let guides = ["README.md", "docs/CLI.md", "docs/RUNNING.md", "docs/DEPLOY.md", "docs/OPERATIONS.md"]
        let readme = try guides.map {
            try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)
        }.joined(separator: "\n")
        let compose = try String(contentsOf: root.appendingPathComponent("docker-compose.yml"), encoding: .utf8)
        try await RnmSystem.with { system in
            let sockets = [
                "/tmp/rnm/universities.sock": system.socket(.universities),
                "/tmp/rnm/characters.sock": system.socket(.characters),
                "/run/rnm/universities.sock": system.socket(.universities),
                "/run/rnm/characters.sock": system.socket(.characters),
                "/run/rnm/gateway.sock": system.gatewaySocket,
            ]
            var commands = DocumentedCommands.readme(readme)
            commands += DocumentedCommands.healthchecks(compose)
            #expect(commands.count >= 25, "found \(commands.count) command lines")
            let workdir = system.directory + "/work"
            try FileManager.default.createDirectory(atPath: workdir, withIntermediateDirectories: true)
            for command in commands {
                let arguments = command.map { sockets[$0] ?? $0 }
                let output = try await system.rnmctl(arguments: arguments, currentDirectory: workdir)
                #expect(
                    output.status == 0,
                    "rnmctl \(command.joined(separator: " ")): exit \(output.status): \(output.stderr.prefix(300))")
            }
            // After both syncs, with the network gone, every one of them still answers (but the
            // syncs themselves, which need the upstream).
            #expect(try await system.rnmctl("characters", "sync").status == 0)
            #expect(try await system.rnmctl("universities", "sync").status == 0)
            system.characterUpstream.fault = .down
            system.universityUpstream.fault = .down
            for command in commands where !command.contains("sync") {
                let arguments = command.map { sockets[$0] ?? $0 }
                let output = try await system.rnmctl(arguments: arguments, currentDirectory: workdir)
                #expect(
                    output.status == 0,
                    """
                    offline: rnmctl \(command.joined(separator: " ")): exit \(output.status): \
                    \(output.stderr.prefix(300))
                    """
                )
            }
        }
    }
}

/// Command lines as the documentation writes them.
enum DocumentedCommands {
    /// The arguments of every `rnmctl` line in README.md's indented code blocks.
    static func readme(_ text: String) -> [[String]] {
        var commands: [[String]] = []
        for line in text.split(separator: "\n") where line.hasPrefix("    ") && !line.contains("──") {
            let code = line.trimmingCharacters(in: .whitespaces).components(separatedBy: "  #").first ?? ""
            for part in code.components(separatedBy: " ; ") {
                var words = shellWords(part)
                for prefix in [["docker-compose", "run", "--rm", "rnmctl"], [".build/debug/rnmctl"], ["rnmctl"]]
                where words.starts(with: prefix) {
                    words.removeFirst(prefix.count)
                    if !words.isEmpty { commands.append(words) }
                    break
                }
            }
        }
        return commands
    }

    /// The arguments of every `rnmctl` healthcheck in docker-compose.yml.
    static func healthchecks(_ text: String) -> [[String]] {
        text.split(separator: "\n").compactMap { line -> [String]? in
            guard let start = line.range(of: "test: [") else { return nil }
            let json = "[" + line[start.upperBound...]
            guard let array = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String],
                array.starts(with: ["CMD", "rnmctl"])
            else { return nil }
            return Array(array.dropFirst(2))
        }
    }

    /// Words as a POSIX shell splits them (single and double quotes).
    static func shellWords(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Swift.Character?
        var inWord = false
        for character in text {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == " " {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }
}
