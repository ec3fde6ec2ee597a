import AlarmBoard
import AlarmHardware
import TOMLConfig
import Testing

@Suite struct BoardProfileTests {
    /// ``TestBoards/minimal`` with one line replaced.
    static func minimal(_ old: String, _ new: String) -> String {
        precondition(TestBoards.minimal.contains(old))
        return TestBoards.minimal.replacing(old, with: new, maxReplacements: 1)
    }

    /// ``TestBoards/minimal`` with lines added under `[display]`, the last table.
    static func minimal(adding lines: String) -> String {
        TestBoards.minimal + "\n" + lines
    }

    @Test func aMinimalProfileTakesEveryDefault() throws {
        let loaded = try TestBoards.parse(TestBoards.minimal)
        #expect(loaded.warnings.isEmpty && loaded.file == "t.toml")
        let expected = BoardProfile(
            name: "t", description: "", simulated: false,
            gpio: .init(
                chip: .label("pinctrl-bcm2711"), stop: .name("GPIO17"), snooze: .name("GPIO27"), led: .name("GPIO22"),
                buttonBias: .pullUp, buttonsActiveLow: true, ledActiveLow: false, debounceMilliseconds: 30
            ),
            display: .init(bus: 1, address: .auto, size: .sixteenByTwo, wiring: .common, compatibilityMode: false),
            sound: .init(device: "default", mixer: nil, card: "default")
        )
        #expect(loaded.profile == expected)
        #expect(loaded.profile.display?.bus == 1)
    }

    @Test func everyKeyIsReadWithItsValue() throws {
        let text = """
            description = "Everything set"
            [gpio]
            chip = "/dev/gpiochip3"
            stop = 5
            snooze = "BUTTON_B"
            led = 0
            button_bias = "pull-down"
            buttons_active_low = false
            led_active_low = true
            debounce_ms = 0
            [display]
            bus = 13
            address = 0x3F
            size = "20x4"
            compatibility_mode = true
            [display.pins]
            rs = 7
            rw = 6
            e = 5
            backlight = 4
            d4 = 3
            d5 = 2
            d6 = 1
            d7 = 0
            backlight_active_low = true
            [sound]
            device = "plughw:CARD=Device,DEV=0"
            mixer = "Speaker"
            card = "hw:CARD=Device"
            """
        let loaded = try TestBoards.parse(text)
        #expect(loaded.warnings.isEmpty)
        let profile = loaded.profile
        #expect(profile.name == "t" && profile.description == "Everything set" && !profile.simulated)
        #expect(profile.gpio == .init(
            chip: .path("/dev/gpiochip3"), stop: .offset(5), snooze: .name("BUTTON_B"), led: .offset(0),
            buttonBias: .pullDown, buttonsActiveLow: false, ledActiveLow: true, debounceMilliseconds: 0
        ))
        #expect(profile.display == .init(
            bus: 13, address: .fixed(0x3F), size: .twentyByFour,
            wiring: PCF8574Wiring(registerSelect: 7, readWrite: 6, enable: 5, data: (3, 2, 1, 0), backlight: 4, backlightActiveLow: true)!,
            compatibilityMode: true
        ))
        #expect(profile.sound == .init(device: "plughw:CARD=Device,DEV=0", mixer: "Speaker", card: "hw:CARD=Device"))
    }

    @Test func chipsAreTakenAsPathNameOrLabelByTheirShape() throws {
        for (text, chip) in [
            ("gpiochip0", BoardProfile.GPIOChip.name("gpiochip0")), ("gpiochip12", .name("gpiochip12")),
            ("gpiochip", .label("gpiochip")), ("gpiochipX", .label("gpiochipX")), ("pinctrl-rp1", .label("pinctrl-rp1")),
            ("/dev/gpiochip4", .path("/dev/gpiochip4")),
        ] {
            let profile = try TestBoards.parse(Self.minimal("chip = \"pinctrl-bcm2711\"", "chip = \"\(text)\"")).profile
            #expect(profile.gpio?.chip == chip)
        }
    }

    @Test func theAlternateWiringPresetIsTheMjkdzBackpack() throws {
        let profile = try TestBoards.parse(Self.minimal(adding: "wiring = \"alternate\"")).profile
        #expect(profile.display?.wiring == .alternate)
        #expect(PCF8574Wiring.alternate == PCF8574Wiring(registerSelect: 6, readWrite: 5, enable: 4, data: (0, 1, 2, 3), backlight: 7, backlightActiveLow: true))
        #expect(PCF8574Wiring.common == PCF8574Wiring(registerSelect: 0, readWrite: 1, enable: 2, data: (4, 5, 6, 7), backlight: 3))
    }

    @Test func aSimulatedBoardNeedsNoHardwareTables() throws {
        let loaded = try TestBoards.parse("simulated = true\n")
        #expect(loaded.profile == BoardProfile(name: "t", simulated: true, gpio: nil, display: nil))
        #expect(loaded.warnings.isEmpty)
        // A table it does have is read by the same rules.
        let withDisplay = try TestBoards.parse("simulated = true\n[display]\nbus = 3\nsize = \"20x4\"")
        #expect(withDisplay.profile.display == .init(bus: 3, size: .twentyByFour))
        #expect(throws: ConfigError.self) { try TestBoards.parse("simulated = true\n[gpio]\nchip = \"x\"") }
    }

    /// Each case: a profile's text, then its one error line exactly.
    static let refused: [(String, String)] = [
        // Top level and tables.
        (minimal("name = \"t\"", "name = \"\""), "t.toml:1: name: must not be empty"),
        (minimal("name = \"t\"", "simulated = \"yes\""), "t.toml:1: simulated: expected true or false, found string \"yes\""),
        (minimal("name = \"t\"", "description = 3"), "t.toml:1: description: expected a string, found integer 3"),
        ("[display]\nbus = 1", "t.toml: gpio: missing [gpio] table (required unless simulated = true)"),
        (minimal("[display]\nbus = 1", ""), "t.toml: display: missing [display] table (required unless simulated = true)"),
        ("gpio = 3\n" + minimal("[gpio]", "[other]"), "t.toml:1: gpio: expected a [gpio] table, found integer 3"),
        // [gpio]
        (minimal("chip = \"pinctrl-bcm2711\"", "chip = 17"),
         "t.toml:3: gpio.chip: expected a chip label, name or path (\"pinctrl-bcm2711\", \"gpiochip0\", \"/dev/gpiochip0\"), found integer 17"),
        (minimal("chip = \"pinctrl-bcm2711\"", "chip = \"\""),
         "t.toml:3: gpio.chip: must not be empty; expected a chip label, name or path (\"pinctrl-bcm2711\", \"gpiochip0\", \"/dev/gpiochip0\")"),
        (minimal("chip = \"pinctrl-bcm2711\"", "chip = \"dev/gpiochip0\""), "t.toml:3: gpio.chip: a chip path must be absolute, like \"/dev/gpiochip0\""),
        (minimal("chip = \"pinctrl-bcm2711\"", "chip = \"\(String(repeating: "x", count: 32))\""),
         "t.toml:3: gpio.chip: \"\(String(repeating: "x", count: 32))\" is longer than a chip label can be (31 bytes)"),
        (minimal("chip = \"pinctrl-bcm2711\"\n", ""), "t.toml:2: gpio.chip: required key is missing; expected a chip label, name or path (\"pinctrl-bcm2711\", \"gpiochip0\", \"/dev/gpiochip0\")"),
        (minimal("stop = \"GPIO17\"", "stop = true"), "t.toml:4: gpio.stop: expected a line name (\"GPIO4\") or offset (4), found boolean true"),
        (minimal("stop = \"GPIO17\"", "stop = \"17\""), "t.toml:4: gpio.stop: \"17\" is a string; write 17 without quotes for a line offset"),
        (minimal("stop = \"GPIO17\"", "stop = 1024"), "t.toml:4: gpio.stop: line offset must be from 0 to 1023, found 1024"),
        (minimal("stop = \"GPIO17\"", "stop = \"\""), "t.toml:4: gpio.stop: must not be empty; expected a line name (\"GPIO4\") or offset (4)"),
        (minimal("snooze = \"GPIO27\"", "snooze = \"GPIO17\""), "t.toml:5: gpio.snooze: GPIO17 is already used by gpio.stop (line 4)"),
        (minimal("led = \"GPIO22\"", "led = \"GPIO27\""), "t.toml:6: gpio.led: GPIO27 is already used by gpio.snooze (line 5)"),
        (minimal("led = \"GPIO22\"\n", ""), "t.toml:2: gpio.led: required key is missing; expected a line name (\"GPIO4\") or offset (4)"),
        (minimal("led = \"GPIO22\"", "led = \"GPIO22\"\nbutton_bias = \"pullup\""),
         "t.toml:7: gpio.button_bias: must be one of \"pull-up\", \"pull-down\", \"disabled\", \"as-is\"; found \"pullup\""),
        (minimal("led = \"GPIO22\"", "led = \"GPIO22\"\nbutton_bias = \"pull-down\""),
         "t.toml:7: gpio.button_bias: button_bias = \"pull-down\" with buttons_active_low = true never sees a press: buttons to GND need pull-up and active-low, buttons to 3.3 V need pull-down and active-high"),
        (minimal("led = \"GPIO22\"", "led = \"GPIO22\"\nbuttons_active_low = false"),
         "t.toml:7: gpio.buttons_active_low: button_bias = \"pull-up\" with buttons_active_low = false never sees a press: buttons to GND need pull-up and active-low, buttons to 3.3 V need pull-down and active-high"),
        (minimal("led = \"GPIO22\"", "led = \"GPIO22\"\nled_active_low = \"yes\""), "t.toml:7: gpio.led_active_low: expected true or false, found string \"yes\""),
        (minimal("led = \"GPIO22\"", "led = \"GPIO22\"\ndebounce_ms = 501"), "t.toml:7: gpio.debounce_ms: must be from 0 to 500, found 501"),
        (minimal("led = \"GPIO22\"", "led = \"GPIO22\"\ndebounce_ms = 2.5"), "t.toml:7: gpio.debounce_ms: expected an integer from 0 to 500, found float 2.5"),
        // [display]
        (minimal("bus = 1", "size = \"16x2\""), "t.toml:7: display.bus: required key is missing; expected an integer from 0 to 255"),
        (minimal("bus = 1", "bus = -1"), "t.toml:8: display.bus: must be from 0 to 255, found -1"),
        (minimal("bus = 1", "bus = \"i2c-1\""), "t.toml:8: display.bus: expected an integer from 0 to 255, found string \"i2c-1\""),
        (minimal(adding: "address = \"0x27\""), "t.toml:9: display.address: \"0x27\" is a string; write 0x27 without quotes"),
        (minimal(adding: "address = 0x78"), "t.toml:9: display.address: expected \"auto\" or an I2C address from 0x03 to 0x77, found 120 (0x78)"),
        (minimal(adding: "address = -1"), "t.toml:9: display.address: expected \"auto\" or an I2C address from 0x03 to 0x77, found -1"),
        (minimal(adding: "address = \"probe\""), "t.toml:9: display.address: expected \"auto\" or an I2C address from 0x03 to 0x77, found string \"probe\""),
        (minimal(adding: "size = \"16x4\""), "t.toml:9: display.size: must be one of \"16x2\", \"20x4\"; found \"16x4\""),
        (minimal(adding: "size = 16"), "t.toml:9: display.size: expected one of \"16x2\", \"20x4\", found integer 16"),
        (minimal(adding: "wiring = \"fancy\""), "t.toml:9: display.wiring: must be one of \"common\", \"alternate\"; found \"fancy\""),
        (minimal(adding: "compatibility_mode = 1"), "t.toml:9: display.compatibility_mode: expected true or false, found integer 1"),
        (minimal(adding: "[display.wiring]\nrs = 0"), "t.toml:9: display.wiring: expected one of \"common\", \"alternate\", found a table"),
        (minimal(adding: "pins = \"common\""), "t.toml:9: display.pins: expected a [display.pins] table, found string \"common\""),
        (minimal(adding: "wiring = \"common\"\n[display.pins]\nrs = 0"), "t.toml:9: display.wiring: give either wiring or a [display.pins] table, not both"),
        (minimal(adding: "[display.pins]\nrs = 0\nrw = 1\ne = 2\nbacklight = 3\nd4 = 4\nd5 = 5\nd6 = 6"),
         "t.toml:9: display.pins.d7: required key is missing; expected an integer from 0 to 7"),
        (minimal(adding: "[display.pins]\nrs = 0\nrw = 1\ne = 2\nbacklight = 3\nd4 = 4\nd5 = 5\nd6 = 6\nd7 = 8"),
         "t.toml:17: display.pins.d7: must be from 0 to 7, found 8"),
        (minimal(adding: "[display.pins]\nrs = 0\nrw = 1\ne = 1\nbacklight = 3\nd4 = 4\nd5 = 5\nd6 = 6\nd7 = 7"),
         "t.toml:12: display.pins.e: bit 1 is already used by display.pins.rw (line 11)"),
        (minimal(adding: "[display.pins]\nrs = 0\nrw = 1\ne = 2\nbacklight = 3\nd4 = 4\nd5 = 5\nd6 = 6\nd7 = 7\nbacklight_active_low = 0"),
         "t.toml:18: display.pins.backlight_active_low: expected true or false, found integer 0"),
        // [sound]
        (minimal(adding: "[sound]\ndevice = \"\""), "t.toml:10: sound.device: must not be empty"),
        (minimal(adding: "[sound]\nmixer = 3"), "t.toml:10: sound.mixer: expected a non-empty string, found integer 3"),
        (minimal(adding: "[sound]\ncard = \"\""), "t.toml:10: sound.card: must not be empty"),
        // Syntax errors come out of the same call.
        (minimal(adding: "size = 16x2"), "t.toml:9: display.size: invalid value 16x2 (strings need quotes: \"16x2\")"),
    ]

    @Test(arguments: refused)
    func eachBadValueGivesOneErrorNamingFileLineAndKey(_ text: String, _ expected: String) {
        do {
            let loaded = try TestBoards.parse(text)
            Issue.record("accepted: \(loaded.profile)")
        } catch {
            #expect(error.description == expected)
        }
    }

    @Test func unknownKeysAndTablesAreWarnedAboutNotRefused() throws {
        let text = Self.minimal("led = \"GPIO22\"", "led = \"GPIO22\"\nbuton_bias = \"pull-up\"") + """

            colour = "red"
            [display.pins]
            rs = 0
            rw = 1
            e = 2
            backlight = 3
            d4 = 4
            d5 = 5
            d6 = 6
            d7 = 7
            d8 = 8
            [speaker]
            volume = 3
            [nothing]
            """
        let loaded = try TestBoards.parse(text)
        #expect(loaded.profile.display?.wiring == .common)
        #expect(loaded.warnings.map(\.description) == [
            "t.toml:7: gpio.buton_bias: unknown key, ignored (did you mean gpio.button_bias?)",
            "t.toml:10: display.colour: unknown key, ignored",
            "t.toml:20: display.pins.d8: unknown key, ignored",
            "t.toml:22: speaker.volume: unknown key, ignored",
            "t.toml:23: nothing: unknown table, ignored",
        ])
    }
}
