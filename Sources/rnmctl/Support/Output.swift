import Foundation
import Messaging

/// Writing results.
enum Output {
    /// Prints a value as JSON on stdout.
    static func printJSON<T: Encodable>(_ value: T) throws {
        print(String(buffer: try JSONCoding.encode(value)))
    }
}
