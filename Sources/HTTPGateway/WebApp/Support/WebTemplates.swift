import Mustache

/// The web app's pages, as Mustache templates (swift-mustache), one file each in
/// `WebApp/Embedded/templates/` (compiled in by the EmbedFiles plugin): every value is
/// HTML-escaped as it is written (`{{…}}`), so no record's text can become markup. Each page
/// starts with the `head` partial and ends with `foot`; a list of records uses `cards`, a time
/// `time` (readable, the exact timestamp in `datetime`, which the script shows in the reader's
/// time zone).
enum WebTemplates {
    /// Every template, by name (its file's name without `.mustache`), parsed once.
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, text) in pages {
            do {
                try library.register(text, named: name)
            } catch {
                preconditionFailure("template \(name) does not parse: \(error)")
            }
        }
        return library
    }()

    /// Each template's name and text.
    static let pages: [(name: String, text: String)] = EmbeddedFiles.texts.compactMap { path, text in
        guard path.hasPrefix(folder), path.hasSuffix(fileExtension) else { return nil }
        return (String(path.dropFirst(folder.count).dropLast(fileExtension.count)), text)
    }.sorted { $0.name < $1.name }

    private static let folder = "templates/"
    private static let fileExtension = ".mustache"
}
