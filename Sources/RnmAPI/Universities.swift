/// A university (docs/PROTOCOL.md §6).
public struct University: Codable, Sendable, Equatable {
    public var name: String
    public var country: String
    public var alphaTwoCode: String
    public var stateProvince: String?
    public var domains: [String]
    public var webPages: [String]

    public init(
        name: String, country: String, alphaTwoCode: String, stateProvince: String?,
        domains: [String], webPages: [String]
    ) {
        self.name = name
        self.country = country
        self.alphaTwoCode = alphaTwoCode
        self.stateProvince = stateProvince
        self.domains = domains
        self.webPages = webPages
    }

    private enum CodingKeys: String, CodingKey {
        case name, country, alphaTwoCode, stateProvince, domains, webPages
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(country, forKey: .country)
        try container.encode(alphaTwoCode, forKey: .alphaTwoCode)
        try container.encode(stateProvince, forKey: .stateProvince)  // null, not absent
        try container.encode(domains, forKey: .domains)
        try container.encode(webPages, forKey: .webPages)
    }
}

/// The country asked for when a request names none.
public let defaultUniversityCountry = "United Arab Emirates"

/// Params of `universities.list` and `universities.refresh`.
public struct UniversityListParams: Codable, Sendable, Equatable {
    /// Default "United Arab Emirates".
    public var country: String?
    /// Case-insensitive substring of the name (`universities.list` only).
    public var name: String?

    public init(country: String? = nil, name: String? = nil) {
        self.country = country
        self.name = name
    }
}

/// Params of `universities.get`.
public struct UniversityGetParams: Codable, Sendable, Equatable {
    /// Exact, case-insensitive.
    public var name: String
    public var country: String?

    public init(name: String, country: String? = nil) {
        self.name = name
        self.country = country
    }
}

/// `universities.list` / `universities.refresh`.
public struct UniversityList: Codable, Sendable, Equatable {
    public var country: String
    /// Items in this answer (after the `name` filter).
    public var count: Int
    /// Universities of the country before the `name` filter.
    public var total: Int?
    public var items: [University]
}

extension UniversityList {
    /// What an empty country says (rnmctl and the web app): the upstream knows countries by
    /// their whole English names, so a misspelt or unknown one finds nothing.
    public static func noneIn(_ country: String) -> String {
        "no universities in \"\(country)\": the upstream matches whole country names in English, "
            + "such as \"United Arab Emirates\" or \"United States\""
    }
}

/// `universities.get`.
public struct UniversityDetail: Codable, Sendable, Equatable {
    public var university: University

    public init(university: University) {
        self.university = university
    }
}

/// `universities.sync`: the whole world list, stored per country.
public struct UniversitySyncResult: Codable, Sendable, Equatable {
    public var countries: Int
    public var universities: Int
    public var durationMs: Int

    public init(countries: Int, universities: Int, durationMs: Int) {
        self.countries = countries
        self.universities = universities
        self.durationMs = durationMs
    }
}

/// The name `universities.list` answers with for a name search across every country.
public let allCountries = "all countries"
