import NIOCore

/// Entity tags of the micro-cache's answers (weak: the same bytes, not the same
/// representation's every header).
enum ETag {
    /// `W/"<FNV-1a of the body>"`.
    static func of(_ body: ByteBuffer) -> String {
        "W/\"\(String(hash(body), radix: 16))\""
    }

    /// FNV-1a (64 bits) of the buffers' readable bytes, one after the other.
    static func hash(_ buffers: ByteBuffer...) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for buffer in buffers {
            buffer.withUnsafeReadableBytes { bytes in
                for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            }
        }
        return hash
    }

    /// The tag of the gzipped copy of the body whose tag is `etag`.
    static func gzipped(_ etag: String) -> String {
        etag.hasSuffix("\"") ? String(etag.dropLast()) + "-gzip\"" : etag + "-gzip"
    }

    /// Whether an `If-None-Match` value names `etag` (or is `*`); weak comparison.
    static func matches(_ header: String, _ etag: String) -> Bool {
        let tag = opaque(etag)
        for part in header.split(separator: ",") {
            let candidate = String(part).trimmingWhitespace
            if candidate == "*" || opaque(candidate) == tag { return true }
        }
        return false
    }

    /// The tag without its weakness mark (`W/`).
    private static func opaque(_ tag: String) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : tag[...]
    }
}
