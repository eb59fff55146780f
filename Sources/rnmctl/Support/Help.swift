import ArgumentParser
import RnmAPI
import ServiceRuntime

/// The longer help texts: examples and what every command shares.
enum Help {
    static let root = """
        Global options, anywhere on the line: --socket PATH (else \(Setting.gatewaySocket.rawValue)), --json, \
        --timeout SECONDS (default \(GlobalOptions.seconds(GlobalOptions.defaultTimeout)); progress restarts it), \
        --verbose, --wide.

        Environment: \(Setting.gatewaySocket.rawValue) (the Gateway's socket), \
        NO_COLOR (set and not empty: no colour), COLUMNS (the width tables fit in), TERM=dumb (no escape codes).

        Examples:
          rnmctl status
          rnmctl characters list --status alive
          rnmctl characters show 1
          rnmctl --json characters show 1
          rnmctl universities list --country Japan --name tokyo

        \(ExitStatus.helpText)
        """

    /// `Examples:` and the lines under it.
    static func examples(_ lines: String...) -> String {
        "Examples:\n" + lines.map { "  " + $0 }.joined(separator: "\n")
    }

    /// `--country`'s help, with the default country RnmAPI names; `more` adds to the parenthesis.
    static func country(_ more: String = "") -> ArgumentHelp {
        ArgumentHelp("The country's full English name (default \"\(defaultUniversityCountry)\"\(more)).")
    }

    /// A filter with fixed values (RnmAPI's, the one list of them): `alive, dead or unknown.`,
    /// and the shell completes them.
    static func oneOf(_ values: [String]) -> ArgumentHelp {
        ArgumentHelp(values.dropLast().joined(separator: ", ") + " or " + (values.last ?? "") + ".")
    }
}
