import Foundation
import TestSupport
import Testing

/// The image's `rnm` binary: each of the five names linked to it runs that program.
@Suite("The multi-call binary", .cleansUp)
struct MultiCallBinaryTests {
    @Test(
        """
        run as rnmctl, Gateway, CharacterService, UniversityService or HTTPGateway it is that program; `rnm PROGRAM` too
        """
    )
    func runsTheProgramItIsNamedAs() async throws {
        let directory = temporaryDirectory()
        let binary = ChildProcess.productsDirectory.appendingPathComponent("rnm")
        for program in ["rnmctl", "Gateway", "CharacterService", "UniversityService", "HTTPGateway"] {
            let link = URL(fileURLWithPath: directory).appendingPathComponent(program)
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: binary)
            let linked = try await ChildProcess.run(executableAt: link, ["--help"], seconds: 20)
            #expect(linked.status == 0, "\(program): \(linked.stderr)")
            #expect(linked.stdout.contains("USAGE: \(program)"), "\(program): \(linked.stdout)")
            let named = try await ChildProcess.run("rnm", [program, "--help"], seconds: 20)
            #expect(named.stdout == linked.stdout)
        }
        let version = try await ChildProcess.run("rnm", ["rnmctl", "--version"], seconds: 20)
        #expect(version.status == 0 && !version.stdout.isEmpty)
        let mistyped = try await ChildProcess.run("rnm", ["rnmctl", "stauts"], seconds: 20)
        #expect(mistyped.status == 64 && mistyped.stderr.contains("Did you mean this?"))
    }

    @Test("any other name gets a usage line that lists the five programs, exit 64")
    func unknownProgram() async throws {
        for arguments in [[], ["Gatewy"]] {
            let output = try await ChildProcess.run("rnm", arguments, seconds: 20)
            #expect(output.status == 64)
            #expect(
                output.stderr.contains("CharacterService, Gateway, HTTPGateway, UniversityService, rnmctl"),
                "\(output.stderr)")
        }
    }
}
