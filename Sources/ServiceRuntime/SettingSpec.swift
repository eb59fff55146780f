#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import ArgumentParser
import Messaging

/// What a setting's default is.
public enum SettingDefault: Sendable {
    /// One number everywhere.
    case integer(Int)
    /// One text everywhere.
    case text(String)
    /// One number in the Gateway, another in a caching service.
    case perProcess(gateway: Int, service: Int)
    /// Made at run time (a path, one per core): described only.
    case described(String)
}

/// The kind of process resolving a setting whose default differs between them.
public enum ProcessKind: Sendable {
    case gateway, service
}

/// Everything known of one setting besides its variable's name: what it is, its default, the
/// range it must be in, which programs read it and under which flag. ``Setting/spec`` is the
/// table of them: the one place each of these is written; `--help`, the options' names, the
/// resolving code and docs/SETTINGS.md (``Setting/reference``) read it.
public struct SettingSpec: Sendable {
    /// What it is, for `--help` and docs/SETTINGS.md (a sentence, without a final period).
    public let summary: String
    public let defaultValue: SettingDefault
    /// The values accepted (integers only).
    public let range: ClosedRange<Int>?
    /// The programs that read it, in the table's order.
    public let readers: [SettingReader]
    /// Its long flag (without `--`) in each reader that takes one.
    public let flags: [SettingReader: String]

    /// - Parameters:
    ///   - flag: the long flag (without `--`) in every reader, but those `flagIn` names otherwise.
    ///   - flagIn: a reader's own flag, where it differs (or where only it takes one).
    public init(
        _ summary: String, default defaultValue: SettingDefault, range: ClosedRange<Int>? = nil,
        readers: [SettingReader], flag: String? = nil, flagIn: [SettingReader: String] = [:]
    ) {
        self.summary = summary
        self.defaultValue = defaultValue
        self.range = range
        self.readers = readers
        var flags = flagIn
        if let flag { for reader in readers where flags[reader] == nil { flags[reader] = flag } }
        self.flags = flags
    }
}

extension Setting {
    /// The default in words, for `--help` and docs/SETTINGS.md.
    public var defaultText: String {
        switch spec.defaultValue {
        case .integer(let value): String(value)
        case .text(let text), .described(let text): text
        case .perProcess(let gateway, let service): "\(gateway) in the Gateway, \(service) in a service"
        }
    }

    /// The option's name, from the table, for a setting every reader takes under one flag.
    public var flagName: NameSpecification {
        let flags = Set(spec.flags.values)
        guard flags.count == 1, let flag = flags.first else {
            preconditionFailure("\(rawValue) has no one flag: ask flagName(in:)")
        }
        return .customLong(flag)
    }

    /// The option's name in `reader`, from the table (a reader the table gives no flag has none
    /// to declare: a programming error).
    public func flagName(in reader: SettingReader) -> NameSpecification {
        guard let flag = spec.flags[reader] else { preconditionFailure("\(rawValue) has no flag in \(reader)") }
        return .customLong(flag)
    }

    /// How a message names it to a user of `reader`: `RNM_HTTP_ADDRESS or --address`.
    public func named(in reader: SettingReader) -> String {
        spec.flags[reader].map { "\(rawValue) or --\($0)" } ?? rawValue
    }

    /// `--help`: what it is, its environment variable and its default.
    public var help: ArgumentHelp {
        ArgumentHelp("\(spec.summary) (env \(rawValue), default \(defaultText)).")
    }

    /// The default number (in `process`, for a setting whose default differs by process).
    public func integerDefault(in process: ProcessKind = .service) -> Int {
        switch spec.defaultValue {
        case .integer(let value): value
        case .perProcess(let gateway, let service): process == .gateway ? gateway : service
        case .text, .described: preconditionFailure("\(rawValue) has no integer default")
        }
    }

    /// The default text (for a setting whose default is a text).
    public var textDefault: String {
        if case .text(let text) = spec.defaultValue { return text }
        preconditionFailure("\(rawValue) has no text default")
    }

    /// The flag's value, else the environment's, else the default; checked against the range.
    /// - Throws: ``SettingError`` when the value is not an integer in the range.
    public func resolveInteger(
        _ flag: Int?, in process: ProcessKind = .service,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> Int {
        try resolveInteger(
            flag, environment: environment, default: integerDefault(in: process),
            range: spec.range ?? 0...Int.max)
    }

    /// The flag's value, else the environment's, else the default text.
    public func resolve(_ flag: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String
    {
        resolve(flag, environment: environment, default: textDefault)
    }
}
