import NIOCore

/// Entity tags of the micro-cache's answers (weak: the same bytes, not the same
/// representation's every header).
enum ETag {
    /// `W/"<hash of the body>"`.
    static func of(_ body: ByteBuffer) -> String {
        "W/\"\(String(hash(body), radix: 16))\""
    }

    /// A 64-bit hash of the buffers' readable bytes, each buffer in turn: FNV-1a's steps over
    /// 8-byte words, each product's high half folded into its low half (a multiplication only
    /// carries upwards), then the bytes left over. Byte by byte it took ~3 ms for a 2 MB answer.
    static func hash(_ buffers: ByteBuffer...) -> UInt64 {
        let prime: UInt64 = 0x100_0000_01b3
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for buffer in buffers {
            buffer.withUnsafeReadableBytes { bytes in
                var index = 0
                while index + 8 <= bytes.count {
                    hash = (hash ^ bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)) &* prime
                    hash ^= hash >> 32
                    index += 8
                }
                for byte in bytes[index...] { hash = (hash ^ UInt64(byte)) &* prime }
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
