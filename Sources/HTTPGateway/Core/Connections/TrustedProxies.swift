#if canImport(Glibc)
    import Glibc
#endif
import HTTPTypes
import NIOCore

/// The proxies (`RNM_HTTP_TRUSTED_PROXIES`) whose word on the client is taken: behind an
/// ingress or a load balancer every connection comes from the proxy's address, so the
/// per-client limits would count every client as one. A request from a trusted proxy is
/// counted by the client its `X-Forwarded-For` names; from anyone else, by its own address (a
/// client cannot name itself someone else). Only `X-Forwarded-For`: it is the header ingress
/// controllers and load balancers append to (ingress-nginx, Envoy, Traefik, cloud balancers),
/// while they pass a client's own `Forwarded` through untouched, so reading `Forwarded` would
/// let any client behind them choose its address.
struct TrustedProxies: Sendable, Equatable {
    /// One address or block: its bytes (4 or 16) and how many leading bits must match.
    struct Block: Sendable, Equatable {
        let bytes: [UInt8]
        let prefix: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var left = prefix
            for (a, b) in zip(address, bytes) where left > 0 {
                let bits = min(8, left)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if a & mask != b & mask { return false }
                left -= bits
            }
            return true
        }
    }

    let blocks: [Block]

    /// No proxy trusted: every peer is the client.
    static let none = TrustedProxies(blocks: [])

    /// `text` as the setting writes it: addresses or CIDR blocks, separated by commas; the
    /// entry at fault when one is neither.
    static func parse(_ text: String) -> Result<TrustedProxies, ParseFailure> {
        var blocks: [Block] = []
        for entry in text.split(separator: ",") {
            let entry = String(entry).trimmingWhitespace
            guard !entry.isEmpty else { continue }
            let parts = entry.split(separator: "/", maxSplits: 1).map(String.init)
            guard let bytes = Self.bytes(of: parts[0]) else { return .failure(ParseFailure(entry: entry)) }
            var prefix = bytes.count * 8
            if parts.count == 2 {
                guard let bits = Int(parts[1]), (0...prefix).contains(bits) else {
                    return .failure(ParseFailure(entry: entry))
                }
                prefix = bits
            }
            blocks.append(Block(bytes: bytes, prefix: prefix))
        }
        return .success(TrustedProxies(blocks: blocks))
    }

    /// The entry of the setting that is neither an address nor a block.
    struct ParseFailure: Error {
        let entry: String
    }

    /// Whether `address` (text, as a socket or a header gives it) is a trusted proxy's.
    func trusts(_ address: String) -> Bool {
        guard !blocks.isEmpty, let bytes = Self.bytes(of: address) else { return false }
        return blocks.contains { $0.contains(bytes) }
    }

    /// The client a request counts as: the peer, unless the peer is a trusted proxy; then the
    /// nearest address `X-Forwarded-For` names that is not itself a trusted proxy (read
    /// from the right: each proxy appends the address it was reached from, and what a client
    /// wrote before them is its own claim). An entry that is not an address ends the walk
    /// at the last proxy.
    func client(peer: String, headers: HTTPFields) -> String {
        guard trusts(peer) else { return peer }
        var client = peer
        for hop in Self.forwardedHops(headers).reversed() {
            guard let bytes = Self.bytes(of: hop), let canonical = Self.text(of: bytes) else { break }
            client = canonical
            if !blocks.contains(where: { $0.contains(bytes) }) { break }
        }
        return client
    }

    /// The hops `X-Forwarded-For` names (every line of it, in order), nearest last.
    static func forwardedHops(_ headers: HTTPFields) -> [String] {
        headers[values: .xForwardedFor].flatMap { $0.split(separator: ",") }.map { String($0).trimmingWhitespace }
    }

    /// An address's bytes (an IPv4-mapped IPv6 address as its IPv4 address).
    static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        let mapped = bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
        return mapped ? Array(bytes.suffix(4)) : bytes
    }

    /// Bytes as one canonical text: two spellings of one address are one client.
    static func text(of bytes: [UInt8]) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let done = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
        }
        guard done else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension HTTPField.Name {
    /// The de facto list of addresses a request passed through.
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}
