import Glibc
import Logging

/// Sends `WATCHDOG=1` at half the watchdog interval, but only after the daemon has shown it is
/// alive: before each ping it awaits `health`, a round trip through the parts whose hang would
/// leave an alarm silent (e.g. an actor hop: a deadlocked actor never returns).
///
/// A ping from a task of its own would prove only that the cooperative pool runs; a `heartbeat()`
/// from the main loop would force the idle appliance to wake every few seconds. If `health`
/// hangs, no ping is sent and systemd restarts the service after `WatchdogSec=`; if it returns
/// `false`, this ping is skipped and the next one asks again.
///
/// - Important: `health` must not block a thread: it runs on the cooperative pool.
public struct WatchdogPinger: Sendable {
    /// The watchdog interval systemd enforces (`WatchdogSec=`).
    public let interval: Duration
    private let notifier: SystemdNotifier
    private let health: @Sendable () async -> Bool
    private let sleep: @Sendable (Duration) async throws -> Void
    private let logger: Logger

    /// `interval` comes from ``SystemdNotifier/watchdogInterval(environment:processID:)``; tests
    /// replace `sleep`. `health` is `true` when the daemon is fit to ring an alarm.
    public init(
        notifier: SystemdNotifier, interval: Duration, logger: Logger,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        health: @escaping @Sendable () async -> Bool
    ) {
        self.notifier = notifier
        self.interval = interval
        self.health = health
        self.sleep = sleep
        self.logger = logger
    }

    /// The time between pings: half the interval, as systemd advises.
    public var period: Duration { interval / 2 }

    /// Sleeps a ``period``, checks health, pings; until cancelled. Undelivered pings are logged
    /// once, not every period, and their recovery once.
    public func run() async {
        var failing = false
        while !Task.isCancelled {
            do { try await sleep(period) } catch { return }
            guard await health() else {
                logger.warning("Watchdog not pinged: the health check failed", metadata: ["watchdog.interval": "\(interval)"])
                continue
            }
            if Task.isCancelled { return }
            do {
                try notifier.send(.watchdog)
                if failing { logger.notice("Watchdog pings delivered again") }
                failing = false
            } catch {
                if !failing { logger.warning("Watchdog ping not delivered; retrying quietly", metadata: ["error": "\(error)"]) }
                failing = true
            }
        }
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
