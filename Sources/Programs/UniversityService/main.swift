// The UniversityService program; its code is the UniversityService library (Sources/UniversityService).
import UniversityService
import ServiceRuntime

// Tasks on the event loops' threads (see EventLoopExecutor), before anything async runs.
EventLoopExecutor.install()

// `main(arguments:)`, not `main()`: in top-level code the latter resolves to ArgumentParser's
// synchronous overload, which cannot run an async command.
await UniversityServiceCommand.main(arguments: Array(CommandLine.arguments.dropFirst()))
