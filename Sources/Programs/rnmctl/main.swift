// The rnmctl program; its code is the rnmctl library (Sources/rnmctl).
import rnmctl

// `main(arguments:)`, not `main()`: in top-level code the latter resolves to ArgumentParser's
// synchronous overload, which cannot run an async command.
await RnmCtl.main(arguments: Array(CommandLine.arguments.dropFirst()))
