#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// What the terminal allows: colour only on a terminal, never when NO_COLOR is set and not
/// empty, never on TERM=dumb; tables as wide as the terminal (or COLUMNS).
enum Terminal {
    static let stdoutIsTTY = isatty(STDOUT_FILENO) == 1
    static let stderrIsTTY = isatty(STDERR_FILENO) == 1
    private static let environment = ProcessInfo.processInfo.environment
    static let colorAllowed = (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    /// Escape sequences (colour, redrawing a line) only where they mean something.
    static let escapesAllowed = environment["TERM"] != "dumb"

    /// The width output should fit in: COLUMNS, else the terminal's, else none (a pipe).
    static let width: Int? = {
        if let columns = environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        guard stdoutIsTTY else { return nil }
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }()

    /// The width of stderr's terminal, for the progress bar.
    static let errorWidth: Int = {
        if let columns = environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }()

    static func bold(_ text: String) -> String {
        stdoutIsTTY && colorAllowed ? "\u{1B}[1m\(text)\u{1B}[0m" : text
    }

    static func warning(_ text: String) -> String {
        stderrIsTTY && colorAllowed ? "\u{1B}[33m\(text)\u{1B}[0m" : text
    }

    /// Writes a line to stderr.
    static func printError(_ text: String) {
        writeError(text + "\n")
    }

    /// Writes `text` to stderr as it is (no line end added).
    static func writeError(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}

/// "1 episode", "2 episodes".
func plural(_ count: Int, _ noun: String, _ plural: String? = nil) -> String {
    "\(count) \(count == 1 ? noun : plural ?? noun + "s")"
}
