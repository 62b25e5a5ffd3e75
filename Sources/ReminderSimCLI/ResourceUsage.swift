#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// What the process has used so far.
enum ResourceUsage {
    /// Peak resident memory of this process, in MB (10^6 bytes).
    static var peakResidentMegabytes: Double {
        var usage = rusage()
        #if os(Linux)
        let who = RUSAGE_SELF.rawValue
        #else
        let who = RUSAGE_SELF
        #endif
        guard getrusage(who, &usage) == 0 else { return 0 }
        #if os(Linux)
        return Double(usage.ru_maxrss) * 1_024 / 1e6  // kilobytes on Linux
        #else
        return Double(usage.ru_maxrss) / 1e6  // bytes on Darwin
        #endif
    }
}
