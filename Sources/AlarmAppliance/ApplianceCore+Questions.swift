import AlarmEngine
import FoundationEssentials

/// Questions waiting for the person's answer, oldest first, and what keeps a sleeper's presses
/// from answering them.
struct QuestionQueue: Sendable {
    struct Pending: Sendable {
        var prompt: DevicePrompt
        var deadline: Date
    }

    var pending: [Pending] = []
    /// Numbers the questions, so each one is new content on the display.
    var asked: UInt64 = 0
    /// Whether the last refresh showed an alert: its end starts the questions' quiet time.
    var alertShown = false
    /// Until when (monotonic) a gesture does not answer a question: the end of an alert plus
    /// ``ApplianceCore/questionQuietAfterAlert``.
    var quietUntil: Duration?
    /// When (monotonic) the last phone pairing was put to the person.
    var lastPairingAsked: Duration?

    var first: Pending? { pending.first }
    var isEmpty: Bool { pending.isEmpty }
}

extension ApplianceCore {
    /// How long after an alert ends a gesture still does not answer a question: the person was
    /// woken moments ago and is pressing buttons to silence the alarm, not to decide anything.
    static let questionQuietAfterAlert: Duration = .seconds(10)
    /// At most one phone pairing question a minute: a stranger on the network asking over and
    /// over must not keep lighting the bedside display.
    static let pairingQuestionInterval: Duration = .seconds(60)

    /// Puts `prompt` on the queue, answered unanswered after
    /// ``ApplianceSettings/authorizationTimeout``; returns its number, which its answer names.
    mutating func ask(_ prompt: DevicePrompt, at moment: ApplianceMoment) -> UInt64 {
        questions.asked += 1
        var prompt = prompt
        prompt.number = questions.asked
        let deadline = moment.wall.addingTimeInterval(settings.authorizationTimeout / .seconds(1))
        questions.pending.append(.init(prompt: prompt, deadline: deadline))
        return prompt.number
    }

    /// How long until another phone pairing may be asked; `nil` if it may be now, which counts
    /// as asked.
    mutating func pairingWait(at moment: ApplianceMoment) -> Duration? {
        if let last = questions.lastPairingAsked, moment.monotonic - last < Self.pairingQuestionInterval {
            return Self.pairingQuestionInterval - (moment.monotonic - last)
        }
        questions.lastPairingAsked = moment.monotonic
        return nil
    }

    /// Answers the oldest question with `gesture`: STOP pressed is no, STOP and SNOOZE held
    /// together yes; anything else, or any gesture in the quiet time after an alert, answers
    /// nothing. `nil` if no question is waiting (the gesture is then the rest of the device's).
    mutating func answerQuestion(with gesture: ButtonGesture, at moment: ApplianceMoment) -> [PartCommand]? {
        guard let question = questions.first else { return nil }
        let text = question.prompt.question
        let answer: PromptAnswer
        switch gesture {
        case .bothHeld: answer = .yes
        case .shortPress(.stop), .longPress(.stop): answer = .no
        case .shortPress(.snooze), .longPress(.snooze):
            return [.log(.info, "SNOOZE alone does not answer a question: hold STOP and SNOOZE together for yes", ["question": text])]
        }
        let said = answer == .yes ? "yes" : "no"
        if let quietUntil = questions.quietUntil, moment.monotonic < quietUntil {
            return [.log(.notice, "Answer ignored: an alarm rang moments ago", ["question": text, "answer": said])]
        }
        questions.pending.removeFirst()
        return [
            .log(.notice, "Answered on the device", ["question": text, "answer": said]),
            .answerPrompt(number: question.prompt.number, answer),
        ]
    }

    /// Questions whose time is up are left undecided.
    mutating func expireQuestions(at moment: ApplianceMoment) -> [PartCommand] {
        var commands: [PartCommand] = []
        while let first = questions.first, first.deadline <= moment.wall {
            questions.pending.removeFirst()
            commands.append(.log(.info, "Nobody answered on the device", ["question": first.prompt.question]))
            commands.append(.answerPrompt(number: first.prompt.number, .unanswered))
        }
        return commands
    }

    /// An alert withdraws every question (it takes the display, and the presses that follow are
    /// meant for it), and its end starts the quiet time in which gestures answer nothing.
    mutating func noteAlerts(in snapshot: DeviceSnapshot, at moment: ApplianceMoment) -> [PartCommand] {
        if snapshot.alerting.isEmpty {
            if questions.alertShown { questions.quietUntil = moment.monotonic + Self.questionQuietAfterAlert }
            questions.alertShown = false
            return []
        }
        questions.alertShown = true
        let withdrawn = questions.pending.map {
            PartCommand.log(.notice, "Question withdrawn: an alarm is ringing", ["question": $0.prompt.question])
        }
        return withdrawn + answerAllQuestions(.withdrawn)
    }

    /// Answers every waiting question with `answer`.
    mutating func answerAllQuestions(_ answer: PromptAnswer) -> [PartCommand] {
        let pending = questions.pending
        questions.pending = []
        return pending.map { .answerPrompt(number: $0.prompt.number, answer) }
    }
}
