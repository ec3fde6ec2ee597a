import AlarmAppliance
import AlarmEngine
import Glibc
import Logging
import Synchronization

/// Sends `WATCHDOG=1` at half the watchdog interval, but only while the daemon shows it could
/// ring an alarm: each ping needs the answer of a round of ``Check``s started one period before,
/// a round trip through every part an alarm passes through (``Check/alarmPath(runtime:appliance:timerProbeDelay:)``:
/// the engine's actor, the wall-clock timer alarms wake from, the appliance's actor).
///
/// A round starts at start-up and after each period's decision, and has the whole period to
/// answer. If every check passed, the ping is sent. A check that has not answered by then holds
/// the pings back, logged once with the part it waits for; if it never answers, systemd restarts
/// the service after `WatchdogSec=`, and if it answers late the pings go on (logged once). A
/// check that returns `false` skips that ping (logged once); the next round asks again.
///
/// A ping from a task of its own would prove only that the cooperative pool runs; a
/// `heartbeat()` from the main loop would force the idle appliance to wake every few seconds.
/// An idle daemon wakes once a period for the ping, plus what the checks cost (one timer wake).
///
/// - Important: a check must not block a thread: it runs on the cooperative pool.
public struct WatchdogPinger: Sendable {
    /// One part's health: a round trip through it that returns `true` when the part is fit to
    /// ring an alarm, and does not return while the part hangs.
    public struct Check: Sendable {
        /// The part, as the log names it ("appliance").
        public let part: String
        public let answer: @Sendable () async -> Bool

        public init(_ part: String, answer: @escaping @Sendable () async -> Bool) {
            self.part = part
            self.answer = answer
        }
    }

    /// The watchdog interval systemd enforces (`WatchdogSec=`).
    public let interval: Duration
    private let notifier: SystemdNotifier
    private let checks: [Check]
    private let sleep: @Sendable (Duration) async throws -> Void
    private let roundEnded: @Sendable (_ failedPart: String?) -> Void
    private let logger: Logger

    /// `interval` comes from ``SystemdNotifier/watchdogInterval(environment:processID:)``.
    /// `checks` run in order, each once its predecessor passed. Tests replace `sleep` and watch
    /// `roundEnded`, called once a round's outcome counts for the next ping (`nil`: every check
    /// passed; else the part that failed).
    public init(
        notifier: SystemdNotifier, interval: Duration, logger: Logger,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        roundEnded: @escaping @Sendable (_ failedPart: String?) -> Void = { _ in },
        checks: [Check]
    ) {
        self.notifier = notifier
        self.interval = interval
        self.checks = checks
        self.sleep = sleep
        self.roundEnded = roundEnded
        self.logger = logger
    }

    /// The time between pings: half the interval, as systemd advises.
    public var period: Duration { interval / 2 }

    /// Where the round of checks is.
    private enum Round {
        case waiting(for: String)
        /// Every check passed (`nil`), or the part whose check failed.
        case answered(failedPart: String?)
    }

    /// The round's state, shared by the pinger's loop and the task running the checks.
    private final class RoundState: Sendable {
        private let round = Mutex(Round.answered(failedPart: nil))

        var current: Round {
            get { round.withLock { $0 } }
            set { round.withLock { $0 = newValue } }
        }
    }

    /// Why pings are held back, while they are.
    private enum Hold: Equatable {
        case unanswered(String)
        case failed(String)
    }

    /// Each period: looks at the round started one period before, pings if it passed, starts the
    /// next; until cancelled. Holding back, undelivered pings and their ends are logged once each.
    public func run() async {
        let round = RoundState()
        var hold: Hold?
        var undelivered = false
        await withDiscardingTaskGroup { group in
            startRound(round, in: &group)
            while !Task.isCancelled {
                do { try await sleep(period) } catch { break }
                if Task.isCancelled { break }
                switch round.current {
                case .waiting(let part):
                    // Still waiting: no new round beside it, and no ping.
                    if hold != .unanswered(part) {
                        logger.error("Watchdog not pinged: a part has not answered its check", metadata: [
                            "watchdog.part": "\(part)", "watchdog.waited": "\(period)",
                        ])
                    }
                    hold = .unanswered(part)
                    continue
                case .answered(let failedPart?):
                    if hold != .failed(failedPart) {
                        logger.error("Watchdog not pinged: a part failed its check", metadata: ["watchdog.part": "\(failedPart)"])
                    }
                    hold = .failed(failedPart)
                case .answered(nil):
                    if hold != nil { logger.notice("Watchdog pinged again: every part answered its check") }
                    hold = nil
                    do {
                        try notifier.send(.watchdog)
                        if undelivered { logger.notice("Watchdog pings delivered again") }
                        undelivered = false
                    } catch {
                        if !undelivered { logger.warning("Watchdog ping not delivered; retrying quietly", metadata: ["error": "\(error)"]) }
                        undelivered = true
                    }
                }
                startRound(round, in: &group)
            }
            group.cancelAll()
        }
    }

    /// Runs the checks in a task of their own, reporting in `round` which part it waits for.
    private func startRound(_ round: RoundState, in group: inout DiscardingTaskGroup) {
        round.current = .waiting(for: checks.first?.part ?? "")
        group.addTask { [checks, roundEnded] in
            var failedPart: String?
            for check in checks {
                round.current = .waiting(for: check.part)
                guard await check.answer() else {
                    failedPart = check.part
                    break
                }
            }
            round.current = .answered(failedPart: failedPart)
            roundEnded(failedPart)
        }
    }
}

extension WatchdogPinger.Check {
    /// The daemon's checks, in the order an alarm passes through the parts: the engine's actor
    /// and the wall-clock timer it sleeps on (``AlarmRuntime/probeTimer(after:)``, a sleep of
    /// `timerProbeDelay` that must fire and be delivered), then the appliance's actor, which
    /// starts the sound.
    public static func alarmPath(
        runtime: AlarmRuntime, appliance: Appliance, timerProbeDelay: Duration = .zero
    ) -> [Self] {
        [
            Self("engine and wall-clock timer") { await runtime.probeTimer(after: timerProbeDelay) },
            Self("appliance") { await appliance.isResponsive() },
        ]
    }
}

extension SystemdNotifier {
    /// The watchdog interval systemd asked for (`WATCHDOG_USEC`), if it asked this process: when
    /// `WATCHDOG_PID` is set it must be `processID` (a child that inherited the variables must not
    /// ping for its parent).
    public static func watchdogInterval(environment: [String: String], processID: Int32 = getpid()) throws(SystemdNotifyError) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"] else { return nil }
        if let pidText = environment["WATCHDOG_PID"] {
            guard let pid = Int32(pidText), pid > 0 else {
                throw SystemdNotifyError("WATCHDOG_PID \"\(pidText)\" is not a process ID")
            }
            if pid != processID { return nil }
        }
        guard let microseconds = Int64(text), microseconds > 0 else {
            throw SystemdNotifyError("WATCHDOG_USEC \"\(text)\" is not a positive number of microseconds")
        }
        return .microseconds(microseconds)
    }
}
