import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmProtocol
import Logging

/// The parts of the board the appliance drives.
public struct ApplianceHardware: Sendable {
    public var buttons: any ButtonInput
    public var indicator: any Indicator
    public var audio: any AudioOutput
    public var display: any CharacterDisplay

    public init(buttons: any ButtonInput, indicator: any Indicator, audio: any AudioOutput, display: any CharacterDisplay) {
        self.buttons = buttons
        self.indicator = indicator
        self.audio = audio
        self.display = display
    }
}

/// Runs an alarm's intents when its buttons are pressed on the device: `stopIntent` on STOP,
/// `secondaryIntent` on a `.custom` secondary button.
///
/// The daemon hands them to the client that set the alarm; the simulator shows them. Called on
/// the appliance's actor after the alarm's change is durable: return promptly (queue the work).
public protocol IntentRunner: Sendable {
    func run(_ intent: AlarmIntent, for alarm: Alarm.ID, owner: ClientID) async
}

/// An ``IntentRunner`` that only logs, for a device with nobody to hand intents to.
public struct LoggingIntentRunner: IntentRunner {
    let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public func run(_ intent: AlarmIntent, for alarm: Alarm.ID, owner: ClientID) async {
        logger.info("Alarm intent not delivered: nobody receives intents here", metadata: [
            "alarm.id": "\(alarm)", "intent": "\(intent.name)", "client": "\(owner)",
        ])
    }
}
