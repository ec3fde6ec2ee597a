import Glibc
import LinuxSupport
internal import CGPIOShim

/// The time and the waiting of the GPIO backends' threads, on `CLOCK_MONOTONIC`: the clock of the
/// kernel's edge timestamps. Tests give the threads a manual one.
protocol GPIOThreadClock: Sendable {
    /// `CLOCK_MONOTONIC` now.
    func now() -> Duration

    /// `CLOCK_BOOTTIME` minus `CLOCK_MONOTONIC` now: the time the system has spent suspended.
    func boottimeOffset() -> Duration

    /// Blocks the calling thread until one of `descriptors` is readable (or reports an error or
    /// hang-up) or `deadline` has passed; `nil` waits for the descriptors alone. Returns each
    /// descriptor's `poll` events, all zero at the deadline.
    func wait(for descriptors: [Int32], until deadline: Duration?) throws(GPIOErrno) -> [Int16]
}

/// The system's `CLOCK_MONOTONIC`, waited on with `ppoll` towards absolute deadlines: a pattern
/// timed step by step from its start does not drift, however late each wake-up is.
struct SystemGPIOClock: GPIOThreadClock {
    func now() -> Duration {
        .nanoseconds(alarmd_gpio_monotonic_ns())
    }

    func boottimeOffset() -> Duration {
        .nanoseconds(alarmd_gpio_boottime_offset_ns())
    }

    /// The corresponding C function is `alarmd_gpio_wait`.
    func wait(for descriptors: [Int32], until deadline: Duration?) throws(GPIOErrno) -> [Int16] {
        var events = [Int16](repeating: 0, count: descriptors.count)
        // A deadline before the clock's start is past: zero, never the negative "no deadline".
        let deadlineNanoseconds = deadline.map { max($0.nanosecondsClamped, 0) } ?? -1
        // SAFETY: both arrays hold `descriptors.count` elements for the duration of the call.
        let result = events.withUnsafeMutableBufferPointer { events in
            descriptors.withUnsafeBufferPointer {
                alarmd_gpio_wait($0.baseAddress, Int32(descriptors.count), deadlineNanoseconds, events.baseAddress)
            }
        }
        guard result >= 0 else { throw GPIOErrno(-result) }
        return events
    }
}
