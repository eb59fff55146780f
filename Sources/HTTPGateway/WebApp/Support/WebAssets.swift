import Hummingbird
import NIOCore

/// The app's style sheet and script, served by rnm under a versioned URL
/// (`/app/assets/app.css?v=…`): cached for a year, and a new build's change is a new URL. Files
/// in `WebApp/Embedded/assets/`, compiled in by the EmbedFiles plugin.
enum WebAssets {
    static let css = file("assets/app.css")
    static let javaScript = file("assets/app.js")
    /// The tab's icon: a portal's green ring.
    static let icon = file("assets/icon.svg")

    /// A hash of both (the ETags' FNV-1a), in hex: changes whenever either does.
    static let version = String(ETag.hash(css, javaScript), radix: 16)

    static func response(_ bytes: ByteBuffer, contentType: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: contentType, .cacheControl: "public, max-age=31536000, immutable",
                .xContentTypeOptions: "nosniff",
            ], body: ResponseBody(byteBuffer: bytes))
    }

    /// An embedded file's bytes; a missing one is a build's mistake, found by the first test.
    private static func file(_ path: String) -> ByteBuffer {
        guard let text = EmbeddedFiles.texts[path] else { preconditionFailure("\(path) is not in WebApp/Embedded") }
        return ByteBuffer(string: text)
    }
}
