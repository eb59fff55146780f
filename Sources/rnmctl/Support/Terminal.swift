import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What the terminal allows: colour only on a terminal and never with NO_COLOR.
enum Terminal {
    static let stdoutIsTTY = isatty(STDOUT_FILENO) == 1
    static let stderrIsTTY = isatty(STDERR_FILENO) == 1
    static let colorAllowed = ProcessInfo.processInfo.environment["NO_COLOR"] == nil

    static func bold(_ text: String) -> String {
        stdoutIsTTY && colorAllowed ? "\u{1B}[1m\(text)\u{1B}[0m" : text
    }

    static func warning(_ text: String) -> String {
        stderrIsTTY && colorAllowed ? "\u{1B}[33m\(text)\u{1B}[0m" : text
    }

    /// Writes a line to stderr.
    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
