import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmModel
import Logging
import Synchronization

/// How a phone pairing question at the device ended.
public enum PairingOutcome: Hashable, Sendable {
    /// STOP and SNOOZE held together: yes.
    case allowed
    /// STOP pressed: no.
    case refused
    /// Nobody answered within ``ApplianceSettings/authorizationTimeout``.
    case unanswered
    /// An alarm rang before anyone answered (or was ringing when it was asked): the display
    /// woke someone instead, and the phone must ask again.
    case withdrawn
    /// A pairing was asked less than a minute ago: the display is not lit for another one yet.
    case tooSoon(retryAfter: Duration)
}

extension Appliance {
    /// Asks the person at the device whether `client` may set alarms: the display asks
    /// "Allow NAME to set alarms?"; STOP and SNOOZE held together answer yes, STOP no. Nobody
    /// answering within ``ApplianceSettings/authorizationTimeout``, or an alert taking the display
    /// first, leaves it `.notDetermined`. Prompts queue.
    public func requestAuthorization(for client: ClientID, named name: String) async -> AlarmManager.AuthorizationState {
        let answer = await ask(
            .init(question: "Allow \(name) to set alarms?", tallLines: ["Allow " + name, "to set alarms?"]),
            about: ["client": "\(client)", "user": "\(name)"])
        switch answer {
        case .yes: return .authorized
        case .no: return .denied
        case .unanswered, .withdrawn: return .notDetermined
        }
    }

    /// Asks the person at the device whether a phone may use the clock's page: "Pair phone
    /// NAME? Code CODE", where CODE is what the phone shows.
    ///
    /// The answer must be meant: yes is STOP and SNOOZE held together for the long-press time, a
    /// gesture no alarm uses, and STOP is no. A question an alert covers is withdrawn, gestures
    /// for ``ApplianceCore/questionQuietAfterAlert`` after an alert do not answer, and a pairing
    /// asked within ``ApplianceCore/pairingQuestionInterval`` of the last one is refused without
    /// lighting the display. So a stranger who asks just before an alarm gets nothing from the
    /// sleeper's presses.
    public func requestPairing(named name: String, code: String) async -> PairingOutcome {
        if let retryAfter = core.pairingWait(at: moment) {
            logger.info("Pairing not asked: another was asked less than a minute ago", metadata: [
                "phone": "\(name)", "retryAfter": "\(retryAfter)",
            ])
            return .tooSoon(retryAfter: retryAfter)
        }
        let answer = await ask(
            .init(question: "Pair phone \(name)? Code \(code)", tallLines: ["Pair phone " + name + "?", "Code " + code]),
            about: ["phone": "\(name)", "code": "\(code)"])
        switch answer {
        case .yes: return .allowed
        case .no: return .refused
        case .unanswered: return .unanswered
        case .withdrawn: return .withdrawn
        }
    }

    private func ask(_ prompt: DevicePrompt, about metadata: Logger.Metadata) async -> PromptAnswer {
        await withCheckedContinuation { (answer: CheckedContinuation<PromptAnswer, Never>) in
            let number = core.ask(prompt, at: moment)
            waitingAnswers[number] = answer
            logger.notice("Asking on the device: \(prompt.question)", metadata: metadata)
            if let loopInput {
                loopInput.yield(.promptAdded)
            } else {
                // Driven step by step (tests, scenarios): show the question now.
                Task { await self.refresh() }
            }
        }
    }

    /// Leaves every waiting question undecided, as when nobody answers: a service stopping does
    /// not keep its clients waiting for a press that will not come.
    public func dismissPrompts() async {
        await perform(core.answerAllQuestions(.unanswered))
    }

    /// `true` once the appliance's actor answers: a hang in it (a deadlock, a blocking call)
    /// never returns, which is what the systemd watchdog is for.
    public func isResponsive() -> Bool {
        true
    }

    /// What each part of the board is doing, for `alarmctl status`.
    public var partFaults: (sound: HardwareError?, display: HardwareError?, indicator: HardwareError?, light: HardwareError?) {
        (soundFault, displayFault, indicatorFault, lightFault)
    }

    /// Whether the board has a sunrise light.
    public nonisolated var hasLight: Bool { hardware.light != nil }

    /// While an alarm rings the built-in tone because its own sound file could not play: which
    /// file, in words for the status.
    public var soundFallbackNote: String? { core.soundFallbackNote }
}

/// The engine's ``AuthorizationPrompter``, answered by the person at the device through the
/// appliance. The engine is made before the appliance (the appliance needs it), so the prompter
/// is attached afterwards; until then, and after the appliance stops, nothing is decided.
///
/// ```swift
/// let prompter = DevicePrompter()
/// let runtime = try AlarmRuntime(..., authorizer: prompter, ...)
/// let appliance = Appliance(runtime: runtime, ...)
/// prompter.attach(appliance)
/// ```
public final class DevicePrompter: AuthorizationPrompter {
    private let appliance = Mutex<Appliance?>(nil)
    private let userName: @Sendable (ClientID) -> String

    /// `userName` names a client for the prompt (the daemon looks the uid up in the password
    /// database).
    public init(userName: @escaping @Sendable (ClientID) -> String = { "\($0)" }) {
        self.userName = userName
    }

    public func attach(_ appliance: Appliance) {
        self.appliance.withLock { $0 = appliance }
    }

    public func requestAuthorization(for client: ClientID) async -> AlarmManager.AuthorizationState {
        guard let appliance = appliance.withLock({ $0 }) else { return .notDetermined }
        return await appliance.requestAuthorization(for: client, named: userName(client))
    }
}
