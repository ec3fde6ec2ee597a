import Glibc
import Testing

@testable import LinuxSupport

@Suite(.timeLimit(.minutes(1))) struct JobQueueTests {
    @Test func readyJobsRunFirstInFirstOut() {
        var queue = JobQueue<String>()
        queue.append("a")
        queue.append("b")
        #expect(queue.next(now: 0) == "a")
        queue.append("c")
        #expect(queue.next(now: 0) == "b")
        #expect(queue.next(now: 0) == "c")
        #expect(queue.next(now: 0) == nil)
    }

    @Test func timedJobsWaitForTheirDeadlineThenGoBeforeReadyOnes() {
        var queue = JobQueue<String>()
        let lateFirst = queue.schedule("late", at: 2_000)
        let earlyFirst = queue.schedule("early", at: 1_000)
        let tieFirst = queue.schedule("early too", at: 1_000)
        #expect(lateFirst && earlyFirst && !tieFirst)
        queue.append("ready")
        #expect(queue.nextDeadline == 1_000)
        #expect(queue.hasJob(now: 0))
        #expect(queue.next(now: 999) == "ready")
        #expect(queue.next(now: 999) == nil)
        #expect(!queue.hasJob(now: 999))
        #expect(queue.next(now: 1_000) == "early")
        #expect(queue.next(now: 1_000) == "early too")
        #expect(queue.next(now: 1_500) == nil)
        #expect(queue.nextDeadline == 2_000)
        #expect(queue.next(now: 2_000) == "late")
        #expect(queue.nextDeadline == nil)
    }
}

/// ``ThreadPoolExecutor`` as a task executor, not installed as the global one: installing it
/// would move every other test onto it.
@Suite(.timeLimit(.minutes(1))) struct ThreadPoolExecutorTests {
    @Test func jobsRunOnTheExecutorsOwnThread() async {
        let executor = ThreadPoolExecutor(threads: 1)
        let first = await Task(executorPreference: executor) { pthread_self() }.value
        let second = await Task(executorPreference: executor) { pthread_self() }.value
        #expect(first == second)
        #expect(first != pthread_self())
    }

    @Test func continuousClockDeadlinesAreMovedToTheMonotonicClock() {
        #expect(ThreadPoolExecutor.monotonicDeadline(5, clock: 2) == 5)
        // "Boot time now" on the continuous clock is "now" on the monotonic one, give or take
        // the moments between the readings.
        let boot = SystemClocks.bootTime.components
        let bootNanoseconds = boot.seconds * 1_000_000_000 + boot.attoseconds / 1_000_000_000
        let converted = ThreadPoolExecutor.monotonicDeadline(bootNanoseconds, clock: 1)
        #expect(abs(converted - ThreadPoolExecutor.monotonicNow()) < 1_000_000_000)
    }
}
