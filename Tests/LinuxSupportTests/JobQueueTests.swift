import Glibc
import Testing


@testable import LinuxSupport

@Suite(.timeLimit(.minutes(5))) struct JobQueueTests {
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
@Suite(.timeLimit(.minutes(5))) struct ThreadPoolExecutorTests {
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
        // A deadline too far to represent stays the farthest, on either clock.
        #expect(ThreadPoolExecutor.monotonicDeadline(.max, clock: 1) == .max)
        #expect(ThreadPoolExecutor.monotonicDeadline(.max, clock: 2) == .max)
    }

    @Test func sleepsTooLongToRepresentWaitForEverAndPastOnesAreDue() {
        #expect((Duration.seconds(2) + .nanoseconds(5)).nanosecondsClamped == 2_000_000_005)
        #expect(Duration.seconds(Int64.max).nanosecondsClamped == .max)
        #expect(Duration.seconds(-Int64.max).nanosecondsClamped == .min)
        // Whole seconds that fit, plus a fraction that does not.
        #expect((Duration.seconds(9_223_372_036) + .milliseconds(900)).nanosecondsClamped == .max)
        #expect(ThreadPoolExecutor.monotonicDeadline(after: .max) == .max)
        #expect(ThreadPoolExecutor.monotonicDeadline(after: -5) <= ThreadPoolExecutor.monotonicNow())
    }
}

#if compiler(>=6.3)
/// The pool as Swift 6.3's default executor: sleeps are scheduled on it, never on libdispatch.
@Suite(.timeLimit(.minutes(5))) struct GlobalPoolTests {
    /// A task that prefers the pool sleeps on it (it is the current scheduling executor); a
    /// sleep the pool never scheduled would hang the test.
    @Test func sleepsOfTasksOnThePoolEnd() async throws {
        try await Task(executorPreference: GlobalPool.shared) {
            try await Task.sleep(for: .nanoseconds(1))
            try await ContinuousClock().sleep(until: .now)
        }.value
    }

    @Test func aLongSleepEndsWhenItsTaskIsCancelled() async {
        let sleeper = Task(executorPreference: GlobalPool.shared) { try await Task.sleep(for: .seconds(3600)) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

}
#endif
