import Glibc

/// `wait-file`: polls for a path every 10 ms.
public enum FileWait {
    /// Waits until `path` exists; the nanoseconds waited, or nil after `timeoutNanoseconds`.
    public static func wait(for path: String, timeoutNanoseconds: Int64) -> Int64? {
        let start = SystemClock.read(CLOCK_MONOTONIC)
        while true {
            let waited = SystemClock.read(CLOCK_MONOTONIC) - start
            if FileIO.exists(path) { return waited }
            if waited >= timeoutNanoseconds { return nil }
            SystemClock.sleep(nanoseconds: min(10_000_000, timeoutNanoseconds - waited))
        }
    }
}
