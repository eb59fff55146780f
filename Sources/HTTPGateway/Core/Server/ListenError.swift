#if canImport(Glibc)
    import Glibc
#endif
import NIOCore
import ServiceRuntime

/// The HTTP front could not listen where it was told to, in a person's words: the address, the
/// setting that chose it, and what to do (NIO's own words were `bind(descriptor:ptr:bytes:):
/// Address already in use) (errno: 98)`: no address, no setting).
struct ListenError: Error, CustomStringConvertible {
    let address: String
    /// The setting that chose the address.
    let setting: Setting
    let errno: CInt

    /// `error` as a ``ListenError`` if it is a failure to listen on `address`.
    init?(_ error: any Error, address: String, setting: Setting = .httpAddress) {
        guard let error = error as? IOError, [EADDRINUSE, EADDRNOTAVAIL, EACCES].contains(error.errnoCode)
        else { return nil }
        self.address = address
        self.setting = setting
        self.errno = error.errnoCode
    }

    var description: String {
        let why =
            switch errno {
            case EADDRINUSE:
                "another process listens there: another rnm (`docker-compose down` stops the compose stack, "
                    + "`scripts/rnm-local stop` a local one) or another server"
            case EACCES: "this user may not listen on that port (ports under 1024 need privileges)"
            default: "no interface of this machine has that address"
            }
        let named = setting.named(in: .httpGateway)
        return "cannot listen on \(address) (\(named)): \(why); set \(setting.rawValue) to a free host:port"
    }
}
