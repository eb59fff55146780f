import Foundation
import Testing

@testable import HTTPGateway

@Suite("the web app's files, compiled in")
struct EmbeddedFilesTests {
    private static let folder = URL(filePath: #filePath).deletingLastPathComponent()
        .appending(path: "../../Sources/HTTPGateway/WebApp/Embedded").standardized

    @Test("every file of WebApp/Embedded is in the binary byte for byte, and nothing else is")
    func byteForByte() throws {
        let paths = try FileManager.default.subpathsOfDirectory(atPath: Self.folder.path(percentEncoded: false)).filter
        {
            var isFolder: ObjCBool = false
            return !URL(filePath: $0).lastPathComponent.hasPrefix(".")
                && FileManager.default.fileExists(
                    atPath: Self.folder.appending(path: $0).path(percentEncoded: false), isDirectory: &isFolder)
                && !isFolder.boolValue
        }
        #expect(Set(paths) == Set(EmbeddedFiles.texts.keys))
        for path in paths {
            // Bytes, not `String`s (which compare by canonical equivalence).
            let bytes = try Data(contentsOf: Self.folder.appending(path: path))
            #expect(EmbeddedFiles.texts[path].map { Data($0.utf8) } == bytes, "\(path) differs from its file")
        }
    }

    @Test("every template parses, and the pages the app renders are all there")
    func templates() {
        let names = Set(WebTemplates.pages.map(\.name))
        for page in ["head", "foot", "cards", "pager", "time", "home", "list", "detail", "favorites", "stats"] {
            #expect(names.contains(page))
        }
        for name in names {
            #expect(WebTemplates.library.getTemplate(named: name) != nil, "\(name) did not parse")
        }
        #expect(WebAssets.css.readableBytes > 1000 && WebAssets.javaScript.readableBytes > 1000)
    }
}
