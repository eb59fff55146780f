import Testing

extension Tag {
    /// Suites whose tests judge timings, memory or fairness against a reference in the same
    /// run: `scripts/test` runs them after the others, one test at a time, so that no other
    /// suite's processes share the machine with them (issue 39). `swift test --skip tag:timing`
    /// runs the rest; `swift test --filter tag:timing` these.
    @Tag public static var timing: Self
}
