import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Messaging

/// rnmctl's exit codes (sysexits.h).
enum ExitStatus {
    static let ok: Int32 = 0
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let notFound: Int32 = 66
    static let unavailable: Int32 = 69
    static let software: Int32 = 70
    static let cannotCreate: Int32 = 73
    static let ioError: Int32 = 74
    static let timeout: Int32 = 75
    static let protocolError: Int32 = 76

    static let helpText = """
        Exit codes: 0 ok, 64 usage or invalid params, 65 request or reply too large, 66 not found \
        (also a page past the end), 69 unavailable (upstream down \
        with nothing cached, a service down, or the Gateway not reachable), 70 internal error, \
        73 cannot create the output file, 74 cannot write it, 75 timed out, 76 protocol error.
        """

    /// The exit code for a wire error.
    static func code(for error: RPCError) -> Int32 {
        switch error.code {
        case .invalidParams, .methodNotFound: usage
        case .tooLarge: dataError
        case .notFound: notFound
        case .upstreamUnavailable, .serviceUnavailable, .overloaded, .storageUnavailable: unavailable
        case .timeout, .cancelled: timeout
        case .parseError, .invalidRequest: protocolError
        default: software
        }
    }
}
