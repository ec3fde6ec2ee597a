import FoundationEssentials
import WebPairings

/// The one pairing that may be waiting at the clock, and the rate limit on asking.
///
/// A browser that asks gets a code and a ticket (a cookie of its own); the clock's display shows
/// the name and the code; the answer given there pairs that browser only, whoever else knows the
/// code. One question at a time: the display shows one, and a second phone asks once it is done.
actor PairingDesk {
    enum Outcome: Sendable {
        case allowed(Pairing)
        case refused
        case unanswered
        case failed(String)
    }

    struct Question: Sendable {
        var ticket: String
        var name: String
        var code: String
        var expires: Date
        var outcome: Outcome?
    }

    /// At most this many questions in ``window``, whatever browsers ask them.
    static let attemptsPerWindow = 5
    static let window: TimeInterval = 15 * 60
    /// A question nobody answered is given up after this (the clock's prompt ends sooner).
    static let questionLifetime: TimeInterval = 90

    private var question: Question?
    private var attempts: [Date] = []
    private var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter: UInt64 = 0

    enum Refusal: Error {
        case busy
        case tooMany(retryAfter: TimeInterval)
    }

    /// Opens a question about `name`; `ask` puts it to the person at the clock and returns the
    /// outcome, which the ticket's holder collects with ``outcome(ticket:waitingUpTo:clock:)``.
    func open(
        name: String, now: Date, ask: @escaping @Sendable (_ name: String, _ code: String) async -> Outcome
    ) throws(Refusal) -> Question {
        if let question, question.outcome == nil, question.expires > now { throw .busy }
        attempts.removeAll { now.timeIntervalSince($0) >= Self.window }
        if attempts.count >= Self.attemptsPerWindow, let oldest = attempts.first {
            throw .tooMany(retryAfter: Self.window - now.timeIntervalSince(oldest))
        }
        attempts.append(now)
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
