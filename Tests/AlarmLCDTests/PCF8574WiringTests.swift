import AlarmHardware
@testable import AlarmLCD
import Testing

struct PCF8574WiringTests {
    @Test func presetsAreDistinct() {
        #expect(PCF8574Wiring.common != PCF8574Wiring.alternate)
    }

    @Test func twoSignalsOnOneOutputOrAnOutputBeyondP7AreRefused() {
        #expect(PCF8574Wiring(registerSelect: 0, readWrite: 0, enable: 2, data: (4, 5, 6, 7), backlight: 3) == nil)
        #expect(PCF8574Wiring(registerSelect: 0, readWrite: nil, enable: 8, data: (4, 5, 6, 7), backlight: nil) == nil)
        #expect(PCF8574Wiring(registerSelect: 0, readWrite: nil, enable: 1, data: (4, 5, 6, 7), backlight: nil) != nil)
    }

    @Test func nibblesMapToTheDataOutputs() {
        #expect(PCF8574Wiring.common.nibbleTable()[0x5] == 0x50)
        #expect(PCF8574Wiring.alternate.nibbleTable()[0x5] == 0x05)
        let reversed = PCF8574Wiring(registerSelect: 0, readWrite: nil, enable: 1, data: (7, 6, 5, 4), backlight: nil)
        #expect(reversed?.nibbleTable()[0x1] == 0x80)
    }

    @Test func aWiringWithoutBacklightOutputSendsNothingToSwitchIt() {
        let wiring = PCF8574Wiring(registerSelect: 0, readWrite: 1, enable: 2, data: (4, 5, 6, 7), backlight: nil)
        #expect(wiring?.backlightBits(true) == 0)
        #expect(wiring?.backlightBits(false) == 0)
    }
}
