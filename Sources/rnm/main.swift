// `rnm`: the five programs in one binary. It runs the program named by the name it was started
// as (the image links Gateway, CharacterService, UniversityService, HTTPGateway and rnmctl to it), or by its
// first argument (`rnm rnmctl status`). One binary carries one copy of the Swift runtime,
// Foundation and ICU instead of five, which is most of the image's size.
// No `await` here: rnmctl runs on this, the main thread; a server starts its own (Program.run).
#if canImport(Glibc)
    import Glibc
#endif

var arguments = Array(CommandLine.arguments.dropFirst())
var program = Program(rawValue: String(CommandLine.arguments.first?.split(separator: "/").last ?? "rnm"))
if program == nil, let first = arguments.first, let named = Program(rawValue: first) {
    program = named
    arguments.removeFirst()
}
guard let program else {
    let list = Program.allCases.map(\.rawValue).sorted().joined(separator: ", ")
    let usage = "usage: rnm PROGRAM [ARGUMENTS...], or run it as one of its names; PROGRAM is one of: \(list)\n"
    _ = usage.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    exit(64)  // EX_USAGE
}
program.run(arguments: arguments)
