import Glibc
import Synchronization

/// SIGTERM and SIGINT as a request to stop: the recorders check ``requested`` between reads and
/// samples, then flush and exit 0.
///
/// The handler only stores to an atomic (async-signal-safe). Blocking calls the recorders make
/// (`poll` inside `snd_pcm_wait`, `clock_nanosleep`) return `EINTR` on a handled signal, and every
/// wait also has a timeout, so a stop is noticed within about 100 ms at worst.
public enum StopSignal {
    private static let flag = Atomic<Bool>(false)

    /// Installs the handler for SIGTERM and SIGINT and unblocks them for the calling thread.
    public static func install() {
        _ = flag.load(ordering: .relaxed)  // initialise the static before a signal can arrive
        var action = sigaction()
        action.__sigaction_handler.sa_handler = stopSignalHandler
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: interrupted waits return EINTR
        // SAFETY: `action` is fully initialised; the handler is a plain C function.
        sigaction(SIGTERM, &action, nil)
        sigaction(SIGINT, &action, nil)
        // A parent may have started the probe with these signals blocked (the mask is inherited
        // across exec): a blocked SIGTERM would stay pending for ever.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    /// Whether a stop was requested.
    public static var requested: Bool { flag.load(ordering: .relaxed) }

    /// Requests a stop as the signal would (tests, and a recorder that must end on its own).
    public static func request() {
        flag.store(true, ordering: .relaxed)
    }

    fileprivate static func signalled() {
        flag.store(true, ordering: .relaxed)
    }
}

/// A global function rather than a closure, so that it carries no actor isolation.
private func stopSignalHandler(_ signal: Int32) {
    StopSignal.signalled()
}
