import RnmAPI
import ServiceRuntime

/// What distinguishes one caching service (the CharacterService, the UniversityService) in
/// the template both fill in: its name and its settings (whose defaults are in the table).
public protocol CachingServiceSpec: Sendable {
    static var name: ServiceName { get }
    /// The program, as the settings table names its readers.
    static var reader: SettingReader { get }
    static var socketSetting: Setting { get }
    static var databaseSetting: Setting { get }
    static var upstreamSetting: Setting { get }
    static var maxAgeSetting: Setting { get }
}
