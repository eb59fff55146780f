import Dispatch

/// Runs tasks on threads of their own, outside the cooperative pool: for code that blocks its
/// thread (``SerialRPCClient``, rnmctl's) in a process whose servers need that pool, the tests'.
/// Blocked on the pool's few threads, it would leave the in-process server none to answer with.
public final class ThreadsExecutor: TaskExecutor {
    public static let shared = ThreadsExecutor()

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        // A serial queue of its own: serial queues run on dispatch's overcommitting threads, a
        // new one whenever the others are blocked (a concurrent queue's stay at one per core,
        // and a blocked one is replaced only after about a second).
        DispatchQueue(label: "rnm.tests.thread").async { job.runSynchronously(on: executor) }
    }
}
