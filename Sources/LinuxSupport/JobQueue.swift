/// The jobs of ``ThreadPoolExecutor``: ready ones first in, first out, and timed ones in order of
/// their deadline (first in, first out for equal deadlines). A value with no clock: every call
/// that depends on time takes `now`.
///
/// ```swift
/// var queue = JobQueue<String>()
/// queue.append("now")
/// queue.schedule("later", at: 5_000)
/// queue.next(now: 0)          // "now"
/// queue.next(now: 0)          // nil: "later" is not due
/// queue.nextDeadline          // 5_000
/// ```
public struct JobQueue<Job> {
    private var ready: [Job] = []
    private var readyStart = 0
    /// Sorted by deadline, then by the order of scheduling.
    private var timed: [(deadline: Int64, job: Job)] = []

    public init() {}

    /// Queues `job` to run as soon as a thread is free.
    public mutating func append(_ job: Job) {
        ready.append(job)
    }

    /// Queues `job` to run once the clock reads `deadline` (nanoseconds). Returns `true` when it
    /// became the earliest timed job, so a thread waiting for a later one must look again.
    @discardableResult
    public mutating func schedule(_ job: Job, at deadline: Int64) -> Bool {
        var low = 0
        var high = timed.count
        while low < high {
            let middle = (low + high) / 2
            if timed[middle].deadline <= deadline { low = middle + 1 } else { high = middle }
        }
        timed.insert((deadline, job), at: low)
        return low == 0
    }

    /// The next job to run at `now`: timed jobs that are due go before ready ones, as they have
    /// waited longest.
    public mutating func next(now: Int64) -> Job? {
        if let first = timed.first, first.deadline <= now {
            return timed.removeFirst().job
        }
        guard readyStart < ready.count else { return nil }
        let job = ready[readyStart]
        readyStart += 1
        if readyStart == ready.count {
            ready.removeAll(keepingCapacity: true)
            readyStart = 0
        }
        return job
    }

    /// When the earliest timed job is due; `nil` if there is none.
    public var nextDeadline: Int64? { timed.first?.deadline }

    /// Whether a job is ready now, without taking it.
    public func hasJob(now: Int64) -> Bool {
        readyStart < ready.count || (timed.first.map { $0.deadline <= now } ?? false)
    }
}
