import AlarmAppliance
import AlarmDaemon
import AlarmEngine
import AlarmSimulator
import AlarmTestKit
import AlarmTime
import Glibc
import JournalLogging
import LinuxSupport
import Logging
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(5))) struct WatchdogPingerTests {
    @Test func pingsAtHalfTheIntervalOnlyWhenTheRoundBeforePassed() async throws {
        let directory = try TemporaryDirectory()
        let receiver = try DatagramReceiver(path: directory.path + "/notify")
        let notifier = SystemdNotifier(address: .path(receiver.address))
        let sleep = SteppedSleep()
        let answers = Mutex<[Bool]>([true, false, true, true, true])
        let rounds = Rounds()
        let pinger = WatchdogPinger(
            notifier: notifier, interval: .seconds(30), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            sleep: sleep.sleep, roundEnded: rounds.ended, checks: [.init("engine") { answers.withLock { $0.removeFirst() } }])
        #expect(pinger.period == .seconds(15))
        let task = Task { await pinger.run() }
        var arrivals = sleep.arrivals.makeAsyncIterator()
        var outcomes = rounds.outcomes.makeAsyncIterator()

        #expect(await outcomes.next() == "passed")  // the round started with the pinger
        #expect(await arrivals.next() == .seconds(15))
        #expect(receiver.pending() == [])        // nothing before the first period
        sleep.release()
        #expect(await arrivals.next() == .seconds(15))
        #expect(receiver.pending() == ["WATCHDOG=1"])
        #expect(await outcomes.next() == "engine failed")
        sleep.release()                          // the check failed: this ping is skipped
        #expect(await arrivals.next() == .seconds(15))
        #expect(receiver.pending() == [])
        #expect(await outcomes.next() == "passed")
        sleep.release()                          // healthy again
        #expect(await arrivals.next() == .seconds(15))
        #expect(receiver.pending() == ["WATCHDOG=1"])

        task.cancel()
        await task.value
        #expect(receiver.pending() == [])
    }

    @Test func anUndeliverablePingIsLoggedOnceAndItsRecoveryOnce() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/notify"
        let capture = try JournalLogHandlerTests.Capture()
        let sleep = SteppedSleep()
        let rounds = Rounds()
        let pinger = WatchdogPinger(
            notifier: SystemdNotifier(address: .path(path)), interval: .seconds(30), logger: capture.logger(), sleep: sleep.sleep,
            roundEnded: rounds.ended, checks: [.init("engine") { true }])
        let task = Task { await pinger.run() }
        var arrivals = sleep.arrivals.makeAsyncIterator()
        var outcomes = rounds.outcomes.makeAsyncIterator()
        _ = await arrivals.next()
        for _ in 0..<3 {  // systemd's socket is gone: three pings fail
            #expect(await outcomes.next() == "passed")
            sleep.release()
            _ = await arrivals.next()
        }
        let receiver = try DatagramReceiver(path: path)
        #expect(await outcomes.next() == "passed")
        sleep.release()
        _ = await arrivals.next()
        #expect(receiver.pending() == ["WATCHDOG=1"])
        task.cancel()
        await task.value
        #expect(capture.text() == """
            <4>Watchdog ping not delivered; retrying quietly error="cannot notify systemd at \(path): No such file or directory"
            <5>Watchdog pings delivered again

            """)
    }

    @Test func aPartThatDoesNotAnswerHoldsThePingsBackAndIsLoggedOnce() async throws {
        let directory = try TemporaryDirectory()
        let receiver = try DatagramReceiver(path: directory.path + "/notify")
        let capture = try JournalLogHandlerTests.Capture()
        let sleep = SteppedSleep()
        let stuck = Gate()
        let stuckOnce = Mutex(true)
        let checking = AsyncStream<Void>.makeStream()
        let rounds = Rounds()
        let pinger = WatchdogPinger(
            notifier: SystemdNotifier(address: .path(receiver.address)), interval: .seconds(2),
            logger: capture.logger(), sleep: sleep.sleep, roundEnded: rounds.ended,
            checks: [
                .init("engine") { true },
                .init("appliance") {
                    // A deadlocked actor: the first round's check does not return until the test opens the gate.
                    let first = stuckOnce.withLock { first in
                        defer { first = false }
                        return first
                    }
                    if first {
                        checking.continuation.yield()
                        await stuck.wait()
                    }
                    return true
                },
            ])
        let task = Task { await pinger.run() }
        var arrivals = sleep.arrivals.makeAsyncIterator()
        var outcomes = rounds.outcomes.makeAsyncIterator()
        var stuckChecks = checking.stream.makeAsyncIterator()
        await stuckChecks.next()
        #expect(await arrivals.next() == .seconds(1))
        for _ in 0..<3 {  // three periods without an answer: no ping, one log line
            sleep.release()
            #expect(await arrivals.next() == .seconds(1))
            #expect(receiver.pending() == [])
        }
        stuck.open()  // it answers late: the next period pings
        #expect(await outcomes.next() == "passed")
        sleep.release()
        #expect(await arrivals.next() == .seconds(1))
        #expect(receiver.pending() == ["WATCHDOG=1"])
        task.cancel()
        await task.value
        #expect(capture.text() == """
            <3>Watchdog not pinged: a part has not answered its check watchdog.part=appliance watchdog.waited="1.0 seconds"
            <5>Watchdog pinged again: every part answered its check

            """)
    }

    @Test func cancelledWhileAPartDoesNotAnswerSendsNoLatePing() async throws {
        let directory = try TemporaryDirectory()
        let receiver = try DatagramReceiver(path: directory.path + "/notify")
        let sleep = SteppedSleep()
        let checking = AsyncStream<Void>.makeStream()
        let stuck = Gate()
        let pinger = WatchdogPinger(
            notifier: SystemdNotifier(address: .path(receiver.address)), interval: .seconds(2),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), sleep: sleep.sleep,
            checks: [.init("appliance") {
                checking.continuation.yield()
                await stuck.wait()
                return true
            }])
        let task = Task { await pinger.run() }
        var checks = checking.stream.makeAsyncIterator()
        await checks.next()
        var arrivals = sleep.arrivals.makeAsyncIterator()
        #expect(await arrivals.next() == .seconds(1))
        task.cancel()
        stuck.open()
        await task.value
        #expect(receiver.pending() == [])
    }

    /// The daemon's own checks, on a real wall-clock timer whose thread the test stops: the
    /// round that waits for it never answers, so the pings stop (systemd would restart the
    /// daemon), and once the thread runs again they resume.
    @Test func aHungWallClockTimerThreadStopsThePings() async throws {
        let directory = try TemporaryDirectory()
        let receiver = try DatagramReceiver(path: directory.path + "/notify")
        let capture = try JournalLogHandlerTests.Capture()
        let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let timer = RealtimeTimer()  // the engine's timer, but not the one every other test sleeps on
        let clock = SystemWallClock(timer: timer)
        let runtime = try AlarmRuntime(
            configuration: .init(storeDirectory: directory.path + "/state"), clock: clock,
            timeZones: ManualTimeZoneProvider(.utc), authorizer: FixedAuthorization(.authorized), logger: quiet)
        let appliance = Appliance(
            runtime: runtime,
            hardware: ApplianceHardware(
                buttons: FakeButtonInput(clock: clock), indicator: FakeIndicator(), audio: FakeAudioOutput(),
                display: FakeCharacterDisplay()),
            clock: clock, logger: quiet)
        let rounds = Rounds()
        let sleep = SteppedSleep()
        let pinger = WatchdogPinger(
            notifier: SystemdNotifier(address: .path(receiver.address)), interval: .seconds(30),
            logger: capture.logger(), sleep: sleep.sleep, roundEnded: rounds.ended,
            checks: WatchdogPinger.Check.alarmPath(runtime: runtime, appliance: appliance))
        let task = Task { await pinger.run() }
        var arrivals = sleep.arrivals.makeAsyncIterator()
        var outcomes = rounds.outcomes.makeAsyncIterator()

        // Healthy: the rounds answer through the real timer, and each period pings.
        #expect(await outcomes.next() == "passed")
        #expect(await arrivals.next() == .seconds(15))
        sleep.release()
        #expect(await arrivals.next() == .seconds(15))
        #expect(receiver.pending() == ["WATCHDOG=1"])
        #expect(await outcomes.next() == "passed")

        // The timer's thread stops; the round that passed before still pings, the next waits.
        let hang = try await TimerThreadHang(timer)
        sleep.release()
        #expect(await arrivals.next() == .seconds(15))
        #expect(receiver.pending() == ["WATCHDOG=1"])
        for _ in 0..<3 {
            sleep.release()
            #expect(await arrivals.next() == .seconds(15))
            #expect(receiver.pending() == [])
        }

        // The thread runs again: the waiting round answers, and the pings resume.
        hang.release()
        #expect(await outcomes.next() == "passed")
        sleep.release()
        #expect(await arrivals.next() == .seconds(15))
        #expect(receiver.pending() == ["WATCHDOG=1"])
        task.cancel()
        await task.value
        #expect(capture.text() == """
            <3>Watchdog not pinged: a part has not answered its check watchdog.part="engine and wall-clock timer" watchdog.waited="15.0 seconds"
            <5>Watchdog pinged again: every part answered its check

            """)
    }
}

/// The outcome of each round of checks, as the pinger counts it: `"passed"` or `"PART failed"`.
final class Rounds: Sendable {
    let outcomes: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation

    init() {
        (outcomes, continuation) = AsyncStream.makeStream()
    }

    @Sendable func ended(_ failedPart: String?) {
        continuation.yield(failedPart.map { "\($0) failed" } ?? "passed")
    }
}

/// Suspends ``wait()`` until ``open()``, whichever comes first.
final class Gate: Sendable {
    private let state = Mutex<(isOpen: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiting.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }

    func open() {
        state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }.forEach { $0.resume() }
    }
}

/// A sleep the test steps through: each call reports its duration on ``arrivals`` and returns
/// when the test calls ``release()`` (or throws once its task is cancelled).
final class SteppedSleep: Sendable {
    let arrivals: AsyncStream<Duration>
    private let arrived: AsyncStream<Duration>.Continuation
    private let state = Mutex<(permits: Int, waiting: [CheckedContinuation<Void, Never>], cancelled: Bool)>((0, [], false))

    init() {
        (arrivals, arrived) = AsyncStream.makeStream()
    }

    @Sendable func sleep(_ duration: Duration) async throws {
        arrived.yield(duration)
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                state.withLock { state in
                    if state.cancelled || Task.isCancelled {
                        continuation.resume()
                    } else if state.permits > 0 {
                        state.permits -= 1
                        continuation.resume()
                    } else {
                        state.waiting.append(continuation)
                    }
                }
            }
        } onCancel: {
            let waiting = state.withLock { state in
                state.cancelled = true
                defer { state.waiting = [] }
                return state.waiting
            }
            waiting.forEach { $0.resume() }
        }
        try Task.checkCancellation()
    }

    /// Lets one sleep (the current one, or the next) return.
    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.permits += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
