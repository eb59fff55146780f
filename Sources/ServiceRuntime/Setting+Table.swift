extension Setting {
    /// The table of settings: each one's summary, default, range, readers and flag, written once
    /// (scripts/settings-doc writes docs/SETTINGS.md's table and settings.env's list from it), in
    /// three parts by the programs that read them: Setting+Table+Processes.swift (every process,
    /// the Gateway), Setting+Table+Services.swift (the caching services) and
    /// Setting+Table+HTTPGateway.swift (the HTTP front and GraphQL).
    public var spec: SettingSpec {
        guard let spec = Self.table[self] else { preconditionFailure("\(rawValue) is not in the settings table") }
        return spec
    }

    /// Every setting's entry, read once from the parts. The parts' switches end in `default: nil`,
    /// so the compiler cannot see a setting left out: a setting in no part, or in two, stops the
    /// first process that reads a setting, and every test.
    private static let table: [Setting: SettingSpec] = Dictionary(
        uniqueKeysWithValues: allCases.map { setting in
            let entries = [setting.processSpec, setting.serviceSpec, setting.httpGatewaySpec].compactMap { $0 }
            precondition(entries.count == 1, "\(setting.rawValue) has \(entries.count) entries in the settings table")
            return (setting, entries[0])
        })
}
