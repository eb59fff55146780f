// The Gateway program; its code is the Gateway library (Sources/Gateway).
import Gateway
import ServiceRuntime

// Tasks on the event loops' threads (see EventLoopExecutor), before anything async runs.
EventLoopExecutor.install(defaultThreads: EventLoopExecutor.gatewayThreads)

// `main(arguments:)`, not `main()`: in top-level code the latter resolves to ArgumentParser's
// synchronous overload, which cannot run an async command.
await GatewayCommand.main(arguments: Array(CommandLine.arguments.dropFirst()))
