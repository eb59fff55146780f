#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Writes an avatar where `rnmctl characters image -o` says: a file, a folder, or stdout.
enum AvatarFile {
    /// The extension of a content type.
    static func fileExtension(of contentType: String) -> String {
        switch contentType {
        case "image/png": "png"
        case "image/gif": "gif"
        case "image/webp": "webp"
        default: "jpeg"
        }
    }

    /// Writes `bytes`; returns the path written, or nil for stdout.
    /// - Throws: ``CLIFailure/cannotCreate(_:)`` (exit 73), ``CLIFailure/cannotWrite(_:)`` (exit 74).
    static func write(_ bytes: Data, contentType: String, id: Int, to output: String) throws -> String? {
        if output == "-" {
            try write(bytes, to: STDOUT_FILENO, path: "stdout")
            return nil
        }
        let ext = fileExtension(of: contentType)
        var path = expandingTilde(in: output)
        if isDirectory(path) {
            path += (path.hasSuffix("/") ? "" : "/") + "\(id).\(ext)"
        } else {
            let name = path.split(separator: "/").last ?? ""
            let given = name.contains(".") ? String(name.split(separator: ".").last ?? "").lowercased() : ""
            let same = given == ext || (ext == "jpeg" && given == "jpg")
            if !given.isEmpty, !same {
                Terminal.printError(
                    Terminal.warning(
                        """
                        note: the avatar is \(contentType); saved as \(path) all the same (its bytes decide the \
                        type, not the name)
                        """
                    ))
            }
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else {
            throw CLIFailure.cannotCreate("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        try write(bytes, to: descriptor, path: path)
        guard fsync(descriptor) == 0 || errno == EINVAL else {
            throw CLIFailure.cannotWrite("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        return path
    }

    private static func write(_ bytes: Data, to descriptor: Int32, path: String) throws {
        try bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else {
                    throw CLIFailure.cannotWrite("cannot write \(path): \(String(cString: strerror(errno)))")
                }
                offset += written
            }
        }
    }

    /// `~` or `~/…` made absolute with `$HOME`, as a shell would.
    private static func expandingTilde(in path: String) -> String {
        guard path == "~" || path.hasPrefix("~/"), let home = ProcessInfo.processInfo.environment["HOME"] else {
            return path
        }
        return home + path.dropFirst()
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}
