import Hummingbird
import NIOCore

/// The app's style sheet and script, served by rnm under a versioned URL
/// (`/app/assets/app.css?v=…`): cached for a year, and a new build's change is a new URL.
enum WebAssets {
    static let css = ByteBuffer(string: AppStyle.css)
    static let javaScript = ByteBuffer(string: AppScript.javaScript)
    /// The tab's icon: a portal's green ring.
    static let icon = ByteBuffer(
        string: """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="12" fill="none" \
            stroke="#3fbf3f" stroke-width="5"/><circle cx="16" cy="16" r="5" fill="#a6f06a"/></svg>
            """)

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
}
