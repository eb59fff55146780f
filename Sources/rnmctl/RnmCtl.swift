import ArgumentParser
import Messaging
import RnmAPI

/// `rnmctl`: the command-line client of rnm. It talks to the Gateway only.
public struct RnmCtl: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "rnmctl",
        abstract: "Query rnm: Rick and Morty characters, locations, episodes and universities.",
        discussion: Help.root,
        version: rnmVersion,
        subcommands: [
            CharactersCommand.self, LocationsCommand.self, EpisodesCommand.self, FavoritesCommand.self,
            UniversitiesCommand.self, StatusCommand.self, MetricsCommand.self, CallCommand.self,
        ]
    )

    public init() {}

    /// ``main(arguments:)`` on the calling thread, the main thread of a `main.swift` without
    /// `await` (see ``ThisThreadExecutor``); returns when the command is done.
    public static func mainOnThisThread(arguments: [String]) {
        ThisThreadExecutor.run { await main(arguments: arguments) }
    }

    /// Global options may stand anywhere on the line (`rnmctl --json characters show 1`), a
    /// mistyped command gets a suggestion, and under `--json` even a usage error is JSON.
    ///
    /// `arguments` are the command line without the program name.
    public static func main(arguments given: [String]) async {
        let arguments = CommandLineArguments(given)
        if let unknown = arguments.unknownCommand(in: self) {
            CLIFailure.usage(unknown).report(json: arguments.wantsJSON, verbose: false)
            exit(withError: ExitCode(ExitStatus.usage))
        }
        do {
            var command = try parseAsRoot(arguments.normalized)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let reported as ExitCode {
            // A command already reported its failure (as JSON under --json).
            exit(withError: reported)
        } catch {
            let code = exitCode(for: error)
            // --help, --version: ArgumentParser's own output.
            guard code.rawValue == ExitStatus.usage else { exit(withError: error) }
            // A usage error in rnmctl's own style (`rnmctl: …`, as every other failure), the
            // sentence without ArgumentParser's "Error: "; then, on a terminal's stderr, its
            // help and usage lines; under --json, only the JSON.
            let lines = fullMessage(for: error).split(separator: "\n", omittingEmptySubsequences: false).map(
                String.init)
            let first = lines.first ?? "usage error"
            var sentence = first.hasPrefix("Error: ") ? String(first.dropFirst("Error: ".count)) : first
            // "The value 'abc' is invalid…" as rnmctl words its sentences: lower case after "rnmctl: ".
            if let initial = sentence.first, initial.isUppercase, sentence.dropFirst().first?.isLowercase == true {
                sentence = initial.lowercased() + sentence.dropFirst()
            }
            CLIFailure.usage(sentence).report(json: arguments.wantsJSON, verbose: false)
            if !arguments.wantsJSON, lines.count > 1 {
                Terminal.writeError(lines.dropFirst().joined(separator: "\n") + "\n")
            }
            exit(withError: ExitCode(ExitStatus.usage))
        }
    }
}
