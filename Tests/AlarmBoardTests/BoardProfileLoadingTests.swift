import AlarmBoard
import AlarmTestKit
import TOMLConfig
import Testing

@Suite struct BoardProfileLoadingTests {
    static let shipped = ["qemu", "rpi3bplus", "rpi4b", "rpi5", "simulated", "zero2w"]

    @Test func theRepositoryShipsOneProfilePerBoard() {
        #expect(Set(Self.shipped).isSubset(of: BoardProfile.available(in: TestBoards.directory)))
    }

    /// Every file in `board/`, including ones added later.
    @Test(arguments: BoardProfile.available(in: TestBoards.directory))
    func everyShippedProfileLoadsByNameWithoutWarnings(_ name: String) throws {
        let loaded = try BoardProfile.load(nameOrPath: name, directory: TestBoards.directory)
        #expect(loaded.warnings.isEmpty, "\(loaded.warnings)")
        #expect(loaded.profile.name == name && !loaded.profile.description.isEmpty)
        #expect(loaded.file == TestBoards.directory + "/" + name + ".toml")
        #expect(loaded.profile.simulated == (name == "simulated"))
        #expect((loaded.profile.gpio == nil) == loaded.profile.simulated)
    }

    /// The facts the profiles encode, checked against what the Raspberry Pi kernels report.
    @Test func theRaspberryPiProfilesUseTheHeaderChipsLabelsAndTheSamePins() throws {
        let labels = ["rpi3bplus": "pinctrl-bcm2835", "rpi4b": "pinctrl-bcm2711", "rpi5": "pinctrl-rp1", "zero2w": "pinctrl-bcm2835"]
        for (name, label) in labels {
            let profile = try BoardProfile.load(nameOrPath: name, directory: TestBoards.directory).profile
            let gpio = try #require(profile.gpio)
            let display = try #require(profile.display)
            #expect(gpio.chip == .label(label), "\(name)")
            #expect([gpio.stop, gpio.snooze, gpio.led] == [.name("GPIO17"), .name("GPIO27"), .name("GPIO22")], "\(name)")
            #expect(gpio.buttonBias == .pullUp && gpio.buttonsActiveLow && !gpio.ledActiveLow, "\(name)")
            #expect(display.bus == 1 && display.address == .auto && display.wiring == .common && !display.compatibilityMode, "\(name)")
        }
        // Only the Pi 3B+ and 4B have the 3.5 mm jack.
        for name in ["rpi3bplus", "rpi4b"] {
            let sound = try BoardProfile.load(nameOrPath: name, directory: TestBoards.directory).profile.sound
            // The mixer's card is a control device: snd_mixer_attach refuses the bare id.
            #expect(sound == .init(device: "plughw:CARD=Headphones,DEV=0", mixer: "PCM", card: "hw:CARD=Headphones"))
        }
        for name in ["rpi5", "zero2w", "simulated"] {
            #expect(try BoardProfile.load(nameOrPath: name, directory: TestBoards.directory).profile.sound == .init())
        }
    }

    @Test func theQEMUProfileMatchesTheEmulatedKernel() throws {
        let profile = try BoardProfile.load(nameOrPath: "qemu", directory: TestBoards.directory).profile
        #expect(profile.gpio?.chip == .name("gpiochip0"))
        #expect(profile.gpio?.stop == .name("GPIO17"))
        #expect(profile.display == .init(bus: 0, address: .fixed(0x27), size: .sixteenByTwo, wiring: .common, compatibilityMode: false))
        #expect(profile.sound == .init(device: "hw:Loopback,0,0"))
    }

    @Test func aValueWithASlashOrEndingInTomlIsAPath() throws {
        #expect(BoardProfile.isPath("board/rpi4b.toml") && BoardProfile.isPath("/etc/x") && BoardProfile.isPath("mine.toml"))
        #expect(!BoardProfile.isPath("rpi4b") && !BoardProfile.isPath("rpi4b.tom"))
        let byPath = try BoardProfile.load(nameOrPath: TestBoards.directory + "/rpi5.toml", directory: "/nonexistent")
        #expect(byPath.profile.name == "rpi5")
    }

    @Test func aNameIsLookedUpInTheDirectoryAndAFileWithoutANameIsNamedAfterItself() throws {
        let directory = try TemporaryDirectory()
        try TestFiles.write(Array(TestBoards.minimal.replacing("name = \"t\"\n", with: "").utf8), to: directory.path + "/mine.toml")
        try TestFiles.write(Array("not = a profile".utf8), to: directory.path + "/.hidden.toml")
        try TestFiles.write(Array("notes".utf8), to: directory.path + "/README.md")
        #expect(BoardProfile.available(in: directory.path) == ["mine"])
        let byName = try BoardProfile.load(nameOrPath: "mine", directory: directory.path + "/")
        #expect(byName.profile.name == "mine" && byName.file == directory.path + "/mine.toml")
        let byPath = try BoardProfile.load(nameOrPath: directory.path + "/mine.toml", directory: TestBoards.directory)
        #expect(byPath.profile == byName.profile)
        #expect(throws: ConfigError(
            file: directory.path + "/other.toml", line: 0, message: "no board profile named \"other\"; available: mine"
        )) {
            try BoardProfile.load(nameOrPath: "other", directory: directory.path)
        }
    }

    @Test func anUnknownNameListsTheAvailableOnes() {
        #expect {
            try BoardProfile.load(nameOrPath: "rpi6", directory: TestBoards.directory)
        } throws: { error in
            (error as? ConfigError)?.description
                == "\(TestBoards.directory)/rpi6.toml: no board profile named \"rpi6\"; available: "
                + BoardProfile.available(in: TestBoards.directory).joined(separator: ", ")
        }
        #expect {
            try BoardProfile.load(nameOrPath: "rpi4b", directory: "/nonexistent")
        } throws: { error in
            (error as? ConfigError)?.description == "/nonexistent/rpi4b.toml: no board profile named \"rpi4b\", and no profiles in /nonexistent"
        }
    }

    @Test func filesThatCannotBeReadSayWhy() throws {
        let directory = try TemporaryDirectory()
        #expect {
            try BoardProfile.load(nameOrPath: directory.path + "/absent.toml", directory: directory.path)
        } throws: { error in
            (error as? ConfigError)?.description == "\(directory.path)/absent.toml: cannot open: No such file or directory"
        }
        try TestFiles.write(Array("name = \"x\"\n# caf".utf8) + [0xE9, 0x0A], to: directory.path + "/latin1.toml")
        #expect {
            try BoardProfile.load(nameOrPath: "latin1", directory: directory.path)
        } throws: { error in
            (error as? ConfigError)?.description == "\(directory.path)/latin1.toml:2: not UTF-8 text"
        }
    }

    /// The messages `board/README.md` shows, made from the real `rpi4b.toml`.
    @Test func theReadmeExamplesAreWhatTheLoaderSays() throws {
        let text = try TestBoards.text("rpi4b")
        func edited(_ old: String, _ new: String) -> String { text.replacing(old, with: new, maxReplacements: 1) }
        #expect(throws: ConfigError(file: "board/rpi4b.toml", line: 13, key: "gpio.snooze", message: "GPIO17 is already used by gpio.stop (line 12)")) {
            try BoardProfile.parse(edited("snooze = \"GPIO27\"", "snooze = \"GPIO17\""), file: "board/rpi4b.toml", defaultName: "rpi4b")
        }
        #expect(throws: ConfigError(file: "board/rpi4b.toml", line: 22, key: "display.address", message: "\"0x27\" is a string; write 0x27 without quotes")) {
            try BoardProfile.parse(edited("address = \"auto\"", "address = \"0x27\""), file: "board/rpi4b.toml", defaultName: "rpi4b")
        }
        let warned = try BoardProfile.parse(edited("button_bias", "buton_bias"), file: "board/rpi4b.toml", defaultName: "rpi4b")
        #expect(warned.warnings.map(\.description) == ["board/rpi4b.toml:15: gpio.buton_bias: unknown key, ignored (did you mean gpio.button_bias?)"])
    }

    /// `snd_mixer_attach` wants a control device; the id `aplay -l` shows is refused by alsa-lib
    /// ("Invalid CTL Headphones"), so the profile says how to write it, at its line.
    @Test func aMixerCardGivenAsABareCardIDWarnsWithTheControlDeviceSpelling() throws {
        let text = try TestBoards.text("rpi4b").replacing("card = \"hw:CARD=Headphones\"", with: "card = \"Headphones\"", maxReplacements: 1)
        let loaded = try BoardProfile.parse(text, file: "board/rpi4b.toml", defaultName: "rpi4b")
        #expect(loaded.warnings.map(\.description) == [
            "board/rpi4b.toml:29: sound.card: \"Headphones\" is a card id, and alsa-lib opens the \"PCM\" control by control device "
                + "name (\"Invalid CTL Headphones\"): write card = \"hw:CARD=Headphones\" (used meanwhile)",
        ])
        #expect(loaded.profile.sound.card == "Headphones")
    }

    @Test(arguments: ["hw:CARD=Headphones", "hw:1", "default", "sysdefault", "hw", "pipewire"])
    func aMixerCardWrittenAsAControlDeviceLoadsWithoutWarning(_ card: String) throws {
        let text = try TestBoards.text("rpi4b").replacing("card = \"hw:CARD=Headphones\"", with: "card = \"\(card)\"", maxReplacements: 1)
        #expect(try BoardProfile.parse(text, file: "board/rpi4b.toml", defaultName: "rpi4b").warnings.isEmpty)
    }

    @Test func aBareCardIDWithoutMixerIsNotWarnedAbout() throws {
        // Nothing opens the card without a mixer control.
        let text = try TestBoards.text("rpi4b")
            .replacing("mixer = \"PCM\"", with: "", maxReplacements: 1)
            .replacing("card = \"hw:CARD=Headphones\"", with: "card = \"Headphones\"", maxReplacements: 1)
        #expect(try BoardProfile.parse(text, file: "board/rpi4b.toml", defaultName: "rpi4b").warnings.isEmpty)
    }
}
