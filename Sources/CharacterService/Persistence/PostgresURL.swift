import ArgumentParser
import Foundation
import NIOSSL
import PostgresNIO

/// `RNM_FAVORITES_URL`, read: `postgres://user:password@host:port/database`, with libpq's
/// `sslmode` (`disable`, `prefer`, the default, `require`, `verify-ca`, `verify-full`),
/// `options`, and `host=/socket/folder` for a Unix socket. The password goes to the client
/// only: ``redacted`` names the database in logs and errors, and no error here repeats the
/// text it was given.
struct PostgresURL: Sendable {
    /// How to connect.
    let configuration: PostgresClient.Configuration
    /// The URL without its password: `postgres://rnm@db:5432/rnm`.
    let redacted: String

    static let form = "postgres://user:password@host:port/database"

    init(_ text: String, setting: String = "RNM_FAVORITES_URL") throws {
        func refuse(_ why: String) -> ValidationError { ValidationError("\(setting) \(why) (\(Self.form))") }
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased() else {
            throw refuse("is not a URL of the form")
        }
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw refuse("must use the scheme postgres or postgresql, not \(scheme)")
        }
        guard let user = url.user, !user.isEmpty else { throw refuse("names no user") }
        let password = url.password
        let name = String(url.path.drop { $0 == "/" })
        let database = name.isEmpty ? nil : name
        let port = url.port ?? 5432
        let query = Dictionary((url.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { $1 }
        var configuration: PostgresClient.Configuration
        if let folder = query["host"], folder.hasPrefix("/") {
            configuration = .init(
                unixSocketPath: "\(folder)/.s.PGSQL.\(port)", username: user, password: password, database: database)
        } else {
            guard let host = url.host, !host.isEmpty else { throw refuse("names no host") }
            // libpq's meanings: `prefer` and `require` encrypt without checking the certificate
            // (Debian's own server has a self-signed one), `verify-ca` checks it was signed by a
            // trusted authority, `verify-full` also that it names the host.
            func checking(_ verification: CertificateVerification) -> TLSConfiguration {
                var tls = TLSConfiguration.makeClientConfiguration()
                tls.certificateVerification = verification
                return tls
            }
            let tls: PostgresClient.Configuration.TLS
            switch query["sslmode"] ?? "prefer" {
            case "disable": tls = .disable
            case "allow", "prefer": tls = .prefer(checking(.none))
            case "require": tls = .require(checking(.none))
            case "verify-ca": tls = .require(checking(.noHostnameVerification))
            case "verify-full": tls = .require(checking(.fullVerification))
            default: throw refuse("has an sslmode other than disable, prefer, require, verify-ca or verify-full")
            }
            configuration = .init(
                host: host, port: port, username: user, password: password, database: database, tls: tls)
        }
        // libpq's `options` (`-c search_path=…`): the server's settings for each connection.
        if let options = query["options"], !options.isEmpty {
            configuration.options.additionalStartupParameters.append(("options", options))
        }
        // A replica holds a few connections at most: favorites are a handful of small statements.
        configuration.options.maximumConnections = 4
        configuration.options.connectTimeout = .seconds(3)
        self.configuration = configuration
        let place = configuration.unixSocketPath ?? "\(url.host ?? ""):\(port)"
        redacted = "\(scheme)://\(user)@\(place)/\(database ?? user)"
    }
}
