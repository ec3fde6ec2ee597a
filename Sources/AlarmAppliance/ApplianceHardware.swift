import AlarmEngine
import AlarmHardware
import AlarmKitCore
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
