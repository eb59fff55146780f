// The rnmctl program; its code is the rnmctl library (Sources/rnmctl). No `await` here: the
// command runs on this, the main thread (RnmCtl.mainOnThisThread).
import rnmctl

RnmCtl.mainOnThisThread(arguments: Array(CommandLine.arguments.dropFirst()))
