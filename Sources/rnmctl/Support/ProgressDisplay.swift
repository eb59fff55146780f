import Foundation
import Messaging
import Synchronization

/// Shows `characters.sync` progress: a bar redrawn in place on a terminal, plain lines otherwise
/// (both on stderr, so stdout keeps only the result).
final class ProgressDisplay: Sendable {
    private let drawn = Mutex(false)

    func show(_ update: ProgressUpdate) {
        if Terminal.stderrIsTTY {
            let width = 30
            let filled = update.total > 0 ? width * update.done / update.total : 0
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            FileHandle.standardError.write(Data("\r\u{1B}[2K[\(bar)] \(update.done)/\(update.total) \(update.message)".utf8))
            drawn.withLock { $0 = true }
        } else {
            Terminal.printError("progress \(update.done)/\(update.total): \(update.message)")
        }
    }

    /// Ends the bar's line.
    func finish() {
        let wasDrawn = drawn.withLock { value -> Bool in
            defer { value = false }
            return value
        }
        if wasDrawn { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
