#if canImport(Glibc)
    import Glibc
#endif
import CoreMetrics
import Synchronization

/// The standard process metrics (`process_resident_memory_bytes`, `process_cpu_seconds_total`,
/// …), read from `/proc/self` at each read-out, as Prometheus's own clients report them.
enum ProcessStatistics {
    static func register(in instruments: Instruments) {
        let resident = RnmMetrics.residentMemory.gauge(in: instruments)
        let virtual = RnmMetrics.virtualMemory.gauge(in: instruments)
        let cpu = FloatingPointCounter(
            label: RnmMetrics.cpuSeconds.name, dimensions: [], factory: instruments.factory)
        let openFDs = RnmMetrics.openFDs.gauge(in: instruments)
        let maxFDs = RnmMetrics.maxFDs.gauge(in: instruments)
        let startTime = RnmMetrics.startTime.gauge(in: instruments)
        // A counter only goes up: it is advanced by what was spent since the last read-out.
        let counted = Mutex(0.0)
        instruments.onCollect {
            guard let stat = Stat.read() else { return }
            resident.record(stat.residentBytes)
            virtual.record(stat.virtualBytes)
            let advance = counted.withLock { counted -> Double in
                defer { counted = max(counted, stat.cpuSeconds) }
                return max(0, stat.cpuSeconds - counted)
            }
            if advance > 0 { cpu.increment(by: advance) }
            if let started = stat.startTime { startTime.record(started) }
            openFDs.record(openFileCount())
            var limit = rlimit()
            if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 { maxFDs.record(Double(limit.rlim_cur)) }
        }
    }

    /// What `/proc/self/stat` says of the process.
    struct Stat {
        var residentBytes: Double
        var virtualBytes: Double
        var cpuSeconds: Double
        /// Seconds since the epoch (needs `/proc/stat`'s boot time).
        var startTime: Double?

        static func read() -> Stat? {
            guard let text = readFile("/proc/self/stat"), let close = text.lastIndex(of: ")") else { return nil }
            // Fields after the command name (which may hold spaces), from field 3 (state) on.
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 22, let utime = Double(fields[11]), let stime = Double(fields[12]),
                let start = Double(fields[19]), let vsize = Double(fields[20]), let rss = Double(fields[21])
            else { return nil }
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            let page = Double(sysconf(Int32(_SC_PAGESIZE)))
            return Stat(
                residentBytes: rss * page, virtualBytes: vsize, cpuSeconds: (utime + stime) / ticks,
                startTime: bootTime().map { $0 + start / ticks })
        }
    }

    /// `btime` of `/proc/stat`: when the machine booted, in seconds since the epoch.
    static func bootTime() -> Double? {
        readFile("/proc/stat")?.split(separator: "\n").first { $0.hasPrefix("btime ") }
            .flatMap { Double($0.dropFirst("btime ".count)) }
    }

    static func openFileCount() -> Double {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            if entry.pointee.d_name.0 != UInt8(ascii: ".") { count += 1 }
        }
        // The directory being read is open itself.
        return Double(max(0, count - 1))
    }

    /// A small text file read whole (the `/proc` files report a size of 0).
    static func readFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, 4096) }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
