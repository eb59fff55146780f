import Testing

extension Tag {
    /// Suites whose tests judge timings, memory or fairness against a reference in the same
    /// run: `scripts/test` runs them after the others, one test at a time, so that no other
    /// suite's processes share the machine with them (issue 39). It reads the tagged suites'
    /// names from the sources: this toolchain's `swift test --filter tag:…` does not filter yet.
    @Tag public static var timing: Self
}
