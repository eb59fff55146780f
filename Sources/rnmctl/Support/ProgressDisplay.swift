#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Messaging
import Synchronization

/// Shows `characters.sync` progress: a bar redrawn in place on a terminal, as wide as the
/// terminal allows, plain lines otherwise (both on stderr, so stdout keeps only the result).
final class ProgressDisplay: Sendable {
    private let drawn = Mutex(false)

    func show(_ update: ProgressUpdate) {
        guard Terminal.stderrIsTTY, Terminal.escapesAllowed else {
            Terminal.printError("progress \(update.done)/\(update.total): \(update.message)")
            return
        }
        Terminal.writeError("\r\u{1B}[2K" + Self.line(update, width: Terminal.errorWidth))
        drawn.withLock { $0 = true }
    }

    /// One line of at most `width - 1` characters: the bar shrinks first, then the message
    /// goes, so the line never wraps (a wrapped line cannot be redrawn in place).
    static func line(_ update: ProgressUpdate, width: Int) -> String {
        let count = "\(update.done)/\(update.total)"
        let room = width - 1
        var barWidth = min(30, room - count.count - 3)
        let message = " " + update.message
        if barWidth + 3 + count.count + message.count > room {
            barWidth = min(barWidth, room - count.count - 3 - message.count)
        }
        let showsMessage = barWidth >= 10 || room - count.count - 3 - message.count >= 0
        barWidth = max(0, min(barWidth, room - count.count - 3 - (showsMessage ? message.count : 0)))
        guard barWidth >= 5 else { return count + (count.count + message.count <= room ? message : "") }
        let filled = update.total > 0 ? min(barWidth, max(0, barWidth * update.done / update.total)) : 0
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled)
        return "[\(bar)] \(count)" + (showsMessage ? message : "")
    }

    /// Ends the bar's line.
    func finish() {
        let wasDrawn = drawn.withLock { value -> Bool in
            defer { value = false }
            return value
        }
        if wasDrawn { Terminal.writeError("\n") }
    }
}
