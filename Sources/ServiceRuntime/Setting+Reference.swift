extension Setting {
    /// The settings reference, one row a setting, every column read from the table
    /// (``Setting/spec``): the table of docs/SETTINGS.md. `scripts/settings-doc` writes it there,
    /// between ``referenceMarks``, and a test fails when the file says otherwise.
    public static var reference: String {
        let rows = allCases.map { setting in
            let columns = [
                "`\(setting.rawValue)`", setting.readersText, markdown(setting.referenceDefault),
                setting.spec.range.map { "\($0.lowerBound) to \($0.upperBound)" } ?? "",
                markdown(setting.spec.summary),
            ]
            return "| " + columns.joined(separator: " | ") + " |"
        }
        return
            (["| variable | read by (flag) | default | range | meaning |", "| --- | --- | --- | --- | --- |"] + rows)
            .joined(separator: "\n")
    }

    /// `text` as a table cell shows it: `|` ends a cell, `<uid>` would be taken for HTML.
    static func markdown(_ text: String) -> String {
        text.replacing("|", with: "\\|").replacing("<", with: "\\<")
    }

    /// The lines around the generated table in docs/SETTINGS.md.
    public static let referenceMarks = (
        begin: "<!-- generated from Sources/ServiceRuntime/Setting+Table.swift by scripts/settings-doc: edit there -->",
        end: "<!-- end of the generated table -->"
    )

    /// Its readers, each run of readers taking the same flag followed by it:
    /// "Gateway `--socket`, HTTPGateway `--gateway-socket`, rnmctl `--socket`".
    var readersText: String {
        var groups: [(readers: [String], flag: String?)] = []
        for reader in spec.readers {
            let flag = spec.flags[reader]
            if let last = groups.last, last.flag == flag {
                groups[groups.count - 1].readers.append(reader.rawValue)
            } else {
                groups.append(([reader.rawValue], flag))
            }
        }
        return groups.map { group in
            group.readers.joined(separator: ", ") + (group.flag.map { " `--\($0)`" } ?? " (no flag)")
        }.joined(separator: "; ")
    }

    /// The default as the reference shows it: a text in code quotes.
    var referenceDefault: String {
        if case .text(let text) = spec.defaultValue { return "`\(text)`" }
        return defaultText
    }
}
