/// Text as a key compared byte for byte. Swift's `String` equality (and hashing) takes
/// canonically equivalent text for the same (`Á` precomposed equals `A` with a combining
/// accent), but the upstream and SQLite do not: a cache or a single flight keyed by `String`
/// would answer one spelling with the other's result. Every key of a cache or a flight built
/// from a client's text is one of these.
public struct ExactText: Hashable, Sendable, CustomStringConvertible {
    public let text: String

    public init(_ text: String) { self.text = text }

    public static func == (lhs: ExactText, rhs: ExactText) -> Bool {
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    public var description: String { text }
}
