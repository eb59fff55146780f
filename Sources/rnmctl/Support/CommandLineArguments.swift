import ArgumentParser

/// rnmctl's command line before ArgumentParser sees it. The global options are declared on
/// each command (ArgumentParser has no inherited options), so wherever the user put them they
/// are moved to the end of the line, where the command that runs takes them.
struct CommandLineArguments {
    /// Global options that take a value.
    static let valued: Set<String> = ["--socket", "--timeout"]
    /// Global flags.
    static let flags: Set<String> = ["--json", "--verbose", "--wide"]

    let original: [String]

    init(_ arguments: [String]) {
        original = arguments
    }

    /// The line with every global option moved after the command's own arguments.
    ///
    /// A negative number is a value, never an option (ArgumentParser would read `-1` as one
    /// and answer "missing argument" for `show -1`): after an option it becomes that option's
    /// value (`--page -1` → `--page=-1`), elsewhere an argument (moved after `--`), so that
    /// the command's own range check answers it as it answers 0.
    var normalized: [String] {
        var rest: [String] = []
        var globals: [String] = []
        var negatives: [String] = []
        var index = 0
        while index < original.count {
            let argument = original[index]
            if argument == "--" {
                // Everything after `--` is an argument: the globals go before it.
                return rest + globals + ["--"] + negatives + original[(index + 1)...]
            }
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if Self.flags.contains(argument) || (Self.valued.contains(name) && argument.contains("=")) {
                globals.append(argument)
            } else if Self.valued.contains(argument), index + 1 < original.count {
                globals += [argument, original[index + 1]]
                index += 1
            } else if Self.isNegativeNumber(argument) {
                if let option = rest.last, option.hasPrefix("-"), !option.contains("="), !Self.isNegativeNumber(option)
                {
                    rest[rest.count - 1] = option + "=" + argument
                } else {
                    negatives.append(argument)
                }
            } else {
                rest.append(argument)
            }
            index += 1
        }
        return rest + globals + (negatives.isEmpty ? [] : ["--"] + negatives)
    }

    /// `-` then digits (and at most one `.`): `-1`, `-0.5`.
    static func isNegativeNumber(_ argument: String) -> Bool {
        let body = argument.utf8.dropFirst()
        return argument.hasPrefix("-") && !body.isEmpty && body.first != UInt8(ascii: ".")
            && body.allSatisfy { ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: ".") }
            && body.filter { $0 == UInt8(ascii: ".") }.count <= 1
    }

    /// Whether the user asked for JSON output.
    var wantsJSON: Bool { original.prefix { $0 != "--" }.contains("--json") }

    /// A message for a command or subcommand that does not exist, with the closest one, or
    /// nil when the line names commands that exist.
    func unknownCommand(in root: any ParsableCommand.Type) -> String? {
        var command: any ParsableCommand.Type = root
        var path = [root._commandName]
        for word in normalized {
            if word.hasPrefix("-") || (command == root && word == "help") { return nil }
            let children = command.configuration.subcommands
            guard !children.isEmpty else { return nil }
            if let child = children.first(where: { $0._commandName == word || $0.configuration.aliases.contains(word) })
            {
                command = child
                path.append(child._commandName)
                continue
            }
            let names = children.flatMap { [$0._commandName] + $0.configuration.aliases }
            let closest = names.min { Self.distance($0, word) < Self.distance($1, word) }
            var message = "unknown command \"\(word)\" for \"\(path.joined(separator: " "))\""
            if let closest, Self.distance(closest, word) <= max(2, word.count / 3) {
                message += "\n\nDid you mean this?\n\t\(closest)"
            }
            return message + "\n\nRun '\(path.joined(separator: " ")) --help' for usage."
        }
        return nil
    }

    /// Levenshtein distance, for suggestions.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
