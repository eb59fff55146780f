// `rnm`: the five programs in one binary. It runs the program named by the name it was started
// as (the image links Gateway, CharacterService, UniversityService, HTTPGateway and rnmctl to it), or by its
// first argument (`rnm rnmctl status`). One binary carries one copy of the Swift runtime,
// Foundation and ICU instead of five, which is most of the image's size.
import CharacterService
import Gateway
import HTTPGateway
import rnmctl
import ServiceRuntime
import UniversityService

#if canImport(Glibc)
    import Glibc
#endif

let programs: [String: @Sendable ([String]) async -> Void] = [
    "Gateway": { await GatewayCommand.main(arguments: $0) },
    "CharacterService": { await CharacterServiceCommand.main(arguments: $0) },
    "UniversityService": { await UniversityServiceCommand.main(arguments: $0) },
    "rnmctl": { await RnmCtl.main(arguments: $0) },
    "HTTPGateway": { await HTTPGatewayCommand.main(arguments: $0) },
]

var arguments = Array(CommandLine.arguments.dropFirst())
var name = String(CommandLine.arguments.first?.split(separator: "/").last ?? "rnm")
if programs[name] == nil, let first = arguments.first, programs[first] != nil {
    name = first
    arguments.removeFirst()
}
// The servers run their tasks on the event loops' threads (see EventLoopExecutor); rnmctl, a
// client that makes one call, has no use for it.
if name != "rnmctl" {
    EventLoopExecutor.install(defaultThreads: name == "Gateway" ? EventLoopExecutor.gatewayThreads : nil)
}
guard let program = programs[name] else {
    let list = programs.keys.sorted().joined(separator: ", ")
    let usage = "usage: rnm PROGRAM [ARGUMENTS...], or run it as one of its names; PROGRAM is one of: \(list)\n"
    _ = usage.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    exit(64)  // EX_USAGE
}
await program(arguments)
