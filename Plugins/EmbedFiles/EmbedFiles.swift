import Foundation
import PackagePlugin

/// Embeds the files of a target's `Embedded` folders in its binary at build time: the web app's
/// templates, style sheet, script and icon are files in the repository (their editors'
/// highlighting, `scripts/lint-web`), and the binary needs no resource bundle beside it
/// (the image's multi-call `rnm`, a static build). The build runs `EmbedFilesTool` again
/// whenever one of them changes.
@main
struct EmbedFiles: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = target.directoryURL
        let manager = FileManager.default
        var inputs: [URL] = []
        for folder in try manager.subpathsOfDirectory(atPath: root.path(percentEncoded: false)).filter({
            $0.hasSuffix("Embedded")
        }) {
            let base = root.appending(path: folder)
            for path in try manager.subpathsOfDirectory(atPath: base.path(percentEncoded: false)).sorted() {
                var isFolder: ObjCBool = false
                let url = base.appending(path: path)
                // An editor's files (`.swp`, `.DS_Store`) are not the app's.
                if url.lastPathComponent.hasPrefix(".") { continue }
                if manager.fileExists(atPath: url.path(percentEncoded: false), isDirectory: &isFolder),
                    !isFolder.boolValue
                {
                    inputs.append(url)
                }
            }
        }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedFiles.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) files in \(target.name)",
                executable: try context.tool(named: "EmbedFilesTool").url,
                arguments: [output.path(percentEncoded: false)] + inputs.map { $0.path(percentEncoded: false) },
                inputFiles: inputs,
                outputFiles: [output])
        ]
    }
}
