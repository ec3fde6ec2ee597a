import AlarmKitCore

/// A person pressing one of an alarm's buttons: at the device (STOP, SNOOZE, STOP held) or on
/// its phone page (Stop, Snooze). Unlike an app's own calls (`stop(id:)`), a press delivers the
/// intent that AlarmKit attaches to the button, as Apple's system runs it when the button is
/// tapped. ``AlarmRuntime/press(_:on:requiring:)`` performs it; ``AlarmRecord/response(to:)`` is the one
/// rule saying what each press does and which intent it delivers.
public enum AlarmPress: String, Codable, Hashable, Sendable, CaseIterable {
    /// The alert's stop button; while counting down or paused, ending the countdown (STOP held,
    /// the page's Stop on a timer or a snooze). Delivers `stopIntent`.
    case stop
    /// The alert's secondary button: snoozes or repeats for `.countdown`, stops for `.custom`;
    /// either way delivers `secondaryIntent`.
    case secondary
    /// The countdown's pause button. AlarmKit attaches no intent to it.
    case pause
    /// The paused presentation's resume button. AlarmKit attaches no intent to it.
    case resume
}

/// What a press does: the change to the alarm, then the intent delivered to its app.
public struct AlarmPressResponse: Hashable, Sendable {
    public var action: AlarmAction
    /// The intent the press delivers; `nil` when the alarm has none for this button.
    public var intent: AlarmIntent?
    /// The button ``intent`` belongs to.
    public var button: AlarmIntentDelivery.Button

    public init(_ action: AlarmAction, delivering intent: AlarmIntent? = nil, as button: AlarmIntentDelivery.Button = .stop) {
        self.action = action
        self.intent = intent
        self.button = button
    }
}

/// A press the alarm has no button for now: refused, and nothing changes.
public struct AlarmPressRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    public var alarmID: Alarm.ID
    public var press: AlarmPress
    public var state: Alarm.State
    /// The change the caller required and the button would not make (the page's Snooze on a
    /// `.custom` secondary button).
    public var required: AlarmAction?

    public init(alarmID: Alarm.ID, press: AlarmPress, state: Alarm.State, required: AlarmAction? = nil) {
        self.alarmID = alarmID
        self.press = press
        self.state = state
        self.required = required
    }

    public var description: String {
        if let required {
            return "alarm \(alarmID)'s \(press.rawValue) button does not \(required == .countdown ? "snooze" : required.rawValue)"
        }
        return switch (press, state) {
        case (.secondary, .alerting): "alarm \(alarmID) has no secondary button"
        case (.pause, .countdown): "alarm \(alarmID) offers no pause button"
        default: "alarm \(alarmID) has no \(press.rawValue) button while it is \(state.rawValue)"
        }
    }
}

extension AlarmRecord {
    /// What `press` does to this alarm as it is now, and the intent it delivers: the one place
    /// this is decided, for the device's buttons and the page alike.
    ///
    /// - Alerting: stop stops (`stopIntent`); the secondary button counts down for `.countdown`
    ///   and stops for `.custom` (`secondaryIntent` either way). A secondary button without a
    ///   behaviour counts down if the alarm has a countdown duration, else is `.custom`.
    /// - Counting down or paused: stop ends it (`stopIntent`): a timer is cancelled, an alarm's
    ///   snooze or pre-alert ends this occurrence only, so a weekly alarm rings next time. Pause
    ///   and resume change nothing else.
    /// - Throws: ``AlarmPressRefusal`` when the alarm shows no such button now.
    public func response(to press: AlarmPress) throws(AlarmPressRefusal) -> AlarmPressResponse {
        let refusal = AlarmPressRefusal(alarmID: id, press: press, state: phase.state)
        let alert = definition.presentation.alert
        switch (press, phase.state) {
        case (.stop, .alerting):
            return AlarmPressResponse(.stop, delivering: definition.stopIntent, as: .stop)
        case (.stop, .countdown), (.stop, .paused):
            return AlarmPressResponse(definition.schedule == nil ? .cancel : .stop, delivering: definition.stopIntent, as: .stop)
        case (.secondary, .alerting):
            guard alert.secondaryButton != nil else { throw refusal }
            switch alert.secondaryButtonBehavior ?? (definition.postAlertCountdown != nil ? .countdown : .custom) {
            case .countdown:
                return AlarmPressResponse(.countdown, delivering: definition.secondaryIntent, as: .secondary)
            case .custom:
                return AlarmPressResponse(.stop, delivering: definition.secondaryIntent, as: .secondary)
            }
        case (.pause, .countdown):
            guard definition.presentation.countdown?.pauseButton != nil else { throw refusal }
            return AlarmPressResponse(.pause)
        case (.resume, .paused):
            return AlarmPressResponse(.resume)
        default:
            throw refusal
        }
    }
}
