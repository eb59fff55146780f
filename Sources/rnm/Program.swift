import CharacterService
import Dispatch
import Gateway
import HTTPGateway
import rnmctl
import ServiceRuntime
import UniversityService

#if canImport(Glibc)
    import Glibc
#endif

/// The programs of the multi-call binary, by the name each is run as (see main.swift).
enum Program: String, CaseIterable {
    case gateway = "Gateway"
    case characterService = "CharacterService"
    case universityService = "UniversityService"
    case httpGateway = "HTTPGateway"
    case rnmctl

    /// Runs the program; returns (rnmctl) or exits when it is done.
    ///
    /// A switch, not a table of closures: rnmctl, a client started for one call, builds nothing
    /// of the servers' and starts no thread of Swift's pool (BENCHMARKS.md, session 17).
    func run(arguments: [String]) {
        switch self {
        case .rnmctl:
            RnmCtl.mainOnThisThread(arguments: arguments)
        case .gateway:
            Self.serve(threads: EventLoopExecutor.gatewayThreads) { await GatewayCommand.main(arguments: arguments) }
        case .characterService:
            Self.serve { await CharacterServiceCommand.main(arguments: arguments) }
        case .universityService:
            Self.serve { await UniversityServiceCommand.main(arguments: arguments) }
        case .httpGateway:
            Self.serve { await HTTPGatewayCommand.main(arguments: arguments) }
        }
    }

    /// A server, as an async `main` runs: a task, the main queue served by `dispatchMain`, and
    /// exit status 0 when it returns. Its tasks run on the event loops' threads (see
    /// EventLoopExecutor).
    private static func serve(threads: Int? = nil, _ program: @escaping @Sendable () async -> Void) -> Never {
        EventLoopExecutor.install(defaultThreads: threads)
        Task {
            await program()
            exit(0)
        }
        dispatchMain()
    }
}
