import ArgumentParser

extension AsyncParsableCommand {
    /// `main()` on the given arguments (without the program name) instead of the process's:
    /// the multi-call binary runs `rnm Gateway --socket …` as `Gateway --socket …`.
    public static func main(arguments: [String]) async {
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
