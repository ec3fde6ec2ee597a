import FoundationEssentials
import Glibc
import WebPairings

/// The one pairing that may be waiting at the clock, and the rate limits on asking.
///
/// A browser that asks gets a code and a ticket (a cookie of its own); the clock's display shows
/// the name and the code; the answer given there pairs that browser only, whoever else knows the
/// code. One question at a time: the display shows one, and a second phone asks once it is done.
///
/// Limits, per 15 minutes (``window``), by the asking address as the TCP connection gives it (an
/// IPv6 address by its /64, see ``asker(_:)``):
/// - each address asks at most 3 times (``attemptsPerAddress``), so one device on the network
///   cannot use up the household's questions;
/// - at most 10 questions in all (``attemptsOverall``), and the last 2 of those only for an
///   address that has not asked in the window (``newcomerReserve``): a few devices asking their
///   fill still leave a phone that has not asked a way in.
/// Behind a proxy every phone is the proxy's address, and the per-address limit is the overall
/// one. A device with addresses in several networks, or several IPv4 addresses, can still use up
/// the overall limit; the clock then asks nothing more until the window moves on.
actor PairingDesk {
    enum Outcome: Sendable {
        case allowed(Pairing)
        case refused
        case unanswered
        case withdrawn
        case tooSoon(retryAfter: Int)
        case failed(String)
    }

    struct Question: Sendable {
        var ticket: String
        var name: String
        var code: String
        var expires: Date
        var outcome: Outcome?
    }

    /// At most this many questions from one address in ``window``.
    static let attemptsPerAddress = 3
    /// At most this many questions in ``window`` in all, whoever asks them...
    static let attemptsOverall = 10
    /// ...of which the last this many only from an address that has not asked in the window.
    static let newcomerReserve = 2
    static let window: TimeInterval = 15 * 60
    /// A question nobody answered is given up after this (the clock's prompt ends sooner).
    static let questionLifetime: TimeInterval = 90

    private var question: Question?
    private var attempts: [(address: String, at: Date)] = []
    private var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter: UInt64 = 0

    enum Refusal: Error {
        case busy
        case tooMany(retryAfter: TimeInterval)
    }

    /// Opens a question about `name`, asked from `address`; `ask` puts it to the person at the
    /// clock and returns the outcome, which the ticket's holder collects with
    /// ``outcome(ticket:waitingUpTo:now:)``.
    func open(
        name: String, from address: String, now: Date, ask: @escaping @Sendable (_ name: String, _ code: String) async -> Outcome
    ) throws(Refusal) -> Question {
        if let question, question.outcome == nil, question.expires > now { throw .busy }
        let address = Self.asker(address)
        attempts.removeAll { now.timeIntervalSince($0.at) >= Self.window }
        let own = attempts.filter { $0.address == address }
        if own.count >= Self.attemptsPerAddress, let oldest = own.first {
            throw .tooMany(retryAfter: Self.window - now.timeIntervalSince(oldest.at))
        }
        let limit = own.isEmpty ? Self.attemptsOverall : Self.attemptsOverall - Self.newcomerReserve
        if attempts.count >= limit {
            // The wait until enough of everyone's questions are older than the window.
            let freeing = attempts[attempts.count - limit]
            throw .tooMany(retryAfter: Self.window - now.timeIntervalSince(freeing.at))
        }
        attempts.append((address, now))
        let code = String(format4: Int.random(in: 0...9999))
        let opened = Question(
            ticket: PairingBook.randomText(bytes: 16), name: name, code: code,
            expires: now.addingTimeInterval(Self.questionLifetime))
        question = opened
        Task {
            let outcome = await ask(name, code)
            self.answer(ticket: opened.ticket, with: outcome)
        }
        return opened
    }

    /// Who asks, for the limits: an IPv4 address, or an IPv6 address's /64, the network a host
    /// picks its temporary addresses from (RFC 8981), so that one host cannot ask as many.
    static func asker(_ address: String) -> String {
        var bytes = in6_addr()
        guard address.contains(":"), inet_pton(AF_INET6, address, &bytes) == 1 else { return address }
        let prefix = withUnsafeBytes(of: bytes) { Array($0.prefix(8)) }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(prefix[$0]) << 8 | UInt16(prefix[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }

    private func answer(ticket: String, with outcome: Outcome) {
        guard question?.ticket == ticket else { return }
        question?.outcome = outcome
        let waiting = waiters
        waiters = [:]
        waiting.values.forEach { $0.resume() }
    }

    enum Collected: Sendable {
        /// No question is open for this ticket (another browser's, or one already answered).
        case unknownTicket
        case waiting
        case decided(Outcome)
    }

    /// The outcome for `ticket`'s holder, waiting up to `limit` for it. An outcome is collected
    /// once: the question is then closed.
    func outcome(ticket: String, waitingUpTo limit: Duration, now: @Sendable () -> Date) async -> Collected {
        guard let current = question, current.ticket == ticket else { return .unknownTicket }
        if current.outcome == nil {
            nextWaiter += 1
            let waiter = nextWaiter
            let timeout = Task {
                try? await Task.sleep(for: limit)
                self.wake(waiter)
            }
            await withCheckedContinuation { waiters[waiter] = $0 }
            timeout.cancel()
        }
        guard let question, question.ticket == ticket else { return .unknownTicket }
        if let outcome = question.outcome {
            self.question = nil
            return .decided(outcome)
        }
        if question.expires <= now() {
            self.question = nil
            return .decided(.unanswered)
        }
        return .waiting
    }

    private func wake(_ waiter: UInt64) {
        waiters.removeValue(forKey: waiter)?.resume()
    }
}

extension String {
    /// `number` as four digits, with leading zeros.
    init(format4 number: Int) {
        let digits = String(number)
        self = String(repeating: "0", count: Swift.max(0, 4 - digits.count)) + digits
    }
}
