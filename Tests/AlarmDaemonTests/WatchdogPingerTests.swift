import JournalLogging
import AlarmDaemon
import AlarmTestKit
import Logging
import Synchronization
import Testing

@Suite struct WatchdogPingerTests {
    @Test func pingsAtHalfTheIntervalOnlyWhenHealthy() async throws {
        let directory = try TemporaryDirectory()
        let receiver = try DatagramReceiver(path: directory.path + "/notify")
        let notifier = SystemdNotifier(address: .path(receiver.address))
        let sleep = SteppedSleep()
        let answers = Mutex<[Bool]>([true, false, true])
        let pinger = WatchdogPinger(notifier: notifier, interval: .seconds(30), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), sleep: sleep.sleep) {
            answers.withLock { $0.removeFirst() }
        }
        #expect(pinger.period == .seconds(15))
        let task = Task { await pinger.run() }
        var arrivals = sleep.arrivals.makeAsyncIterator()

        #expect(await arrivals.next() == .seconds(15))
        #expect(receiver.pending() == [])        // nothing before the first period
        sleep.release()
        #expect(await arrivals.next() == .seconds(15))
        #expect(receiver.pending() == ["WATCHDOG=1"])
        sleep.release()                          // unhealthy: this ping is skipped
        #expect(await arrivals.next() == .seconds(15))
        #expect(receiver.pending() == [])
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
        let pinger = WatchdogPinger(
            notifier: SystemdNotifier(address: .path(path)), interval: .seconds(30), logger: capture.logger(), sleep: sleep.sleep
        ) { true }
        let task = Task { await pinger.run() }
        var arrivals = sleep.arrivals.makeAsyncIterator()
        _ = await arrivals.next()
        for _ in 0..<3 {  // systemd's socket is gone: three pings fail
            sleep.release()
            _ = await arrivals.next()
        }
        let receiver = try DatagramReceiver(path: path)
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

    @Test func aHealthCheckThatNeverAnswersStopsThePings() async throws {
        let directory = try TemporaryDirectory()
        let receiver = try DatagramReceiver(path: directory.path + "/notify")
        let sleep = SteppedSleep()
        let checking = AsyncStream<Void>.makeStream()
        let stuck = Gate()
        let pinger = WatchdogPinger(
            notifier: SystemdNotifier(address: .path(receiver.address)), interval: .seconds(2),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), sleep: sleep.sleep
        ) {
            checking.continuation.yield()
            await stuck.wait()  // a deadlocked actor: the check does not return until the test opens the gate
            return true
        }
        let task = Task { await pinger.run() }
        var arrivals = sleep.arrivals.makeAsyncIterator()
        #expect(await arrivals.next() == .seconds(1))
        sleep.release()
        var checks = checking.stream.makeAsyncIterator()
        await checks.next()
        #expect(receiver.pending() == [])
        task.cancel()
        stuck.open()
        await task.value
        #expect(receiver.pending() == [])  // cancelled while checking: no late ping
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
