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
    /// The sunrise light, on a board that has one.
    public var light: (any DimmableLight)?

    public init(
        buttons: any ButtonInput, indicator: any Indicator, audio: any AudioOutput, display: any CharacterDisplay,
        light: (any DimmableLight)? = nil
    ) {
        self.buttons = buttons
        self.indicator = indicator
        self.audio = audio
        self.display = display
        self.light = light
    }
}
