import AlarmTestKit
import Testing

/// `alarmd`'s commands as a person or a script runs them: the built executable, its output and
/// its exit status.
@Suite struct AlarmdCommandTests {
    static let alarmd = ChildProcess.product("alarmd")
    static let repository: String = "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
    static let boards = repository + "/board"

    func selftest(_ arguments: [String], input: String? = nil) async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            Self.alarmd, ["selftest", "--boards-directory", Self.boards, "--show-seconds", "0"] + arguments, input: input)
    }

    // MARK: - selftest

    @Test func theSimulatedBoardPassesWithoutAPerson() async throws {
        let result = try await selftest(["--board", "simulated", "--non-interactive"])
        #expect(result.exitStatus == 0, "\(result.standardOutput)\(result.standardError)")
        let verdicts = result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("PASS") || $0.hasPrefix("FAIL") }
        #expect(verdicts.map { String($0.prefix(4)) } == ["PASS", "PASS", "PASS", "PASS", "PASS"])
        #expect(result.standardOutput.contains("PASS  light: rose to full in four steps"))
        #expect(result.standardOutput.contains("All 5 checked parts work."))
    }

    @Test func aPersonConfirmsEachOutputAndAWrongAnswerFailsWithAHint() async throws {
        let yes = try await selftest(["--board", "simulated"], input: "y\ny\ny\ny\n")
        #expect(yes.exitStatus == 0, "\(yes.standardOutput)")
        #expect(yes.standardOutput.contains("Did the LED blink? [y/n]"))
        #expect(yes.standardOutput.contains("Did the light rise to full in four steps, then go out? [y/n]"))

        let noSound = try await selftest(["--board", "simulated", "--only", "sound"], input: "maybe\nn\n")
        #expect(noSound.exitStatus == 1)
        #expect(noSound.standardOutput.contains("Please answer y or n."))
        #expect(noSound.standardOutput.contains("FAIL  sound: the device took the sound but nobody heard it"))
        #expect(noSound.standardOutput.contains("hint: check the speaker"))
    }

    @Test func noAnswerIsAFailureNotAHang() async throws {
        let result = try await selftest(["--board", "simulated", "--only", "led"], input: "")
        #expect(result.exitStatus == 1)
        #expect(result.standardOutput.contains("FAIL  led: no answer"))
    }

    @Test func missingHardwareFailsEachPartWithItsCauseAndAHint() async throws {
        // This machine has no GPIO chip, no I2C bus 1 and no sound card (its RTC is its own:
        // RTCCheckTests checks that part).
        let result = try await selftest(
            ["--board", "rpi4b", "--non-interactive", "--only", "led", "--only", "display", "--only", "sound", "--only", "buttons"])
        #expect(result.exitStatus == 1)
        let output = result.standardOutput
        #expect(output.contains("FAIL  led: pinctrl-bcm2711: not available"))
        #expect(output.contains("FAIL  display: /dev/i2c-1@0x27: not available (No such file or directory"))
        #expect(output.contains("FAIL  sound: plughw:CARD=Headphones,DEV=0: not available"))
        #expect(output.contains("FAIL  buttons: pinctrl-bcm2711: not available"))
        #expect(output.contains("enable I2C (`sudo raspi-config nonint do_i2c 0`)"))
        #expect(output.contains("4 of 4 parts failed: led, display, sound, buttons."))
    }

    @Test func aLightThatIsNotThereOrNotInTheProfileFailsWithWhatToDo() async throws {
        // This machine has no PWM controller: a Pi 5's light is not there.
        let directory = try TemporaryDirectory()
        let profile = directory.path + "/pi5-light.toml"
        let rpi5 = String(decoding: TestFiles.read(Self.boards + "/rpi5.toml") ?? [], as: UTF8.self)
        try TestFiles.write(Array((rpi5 + "\n[light]\nchip = \"1f00098000.pwm\"\nenable = \"dtoverlay=pwm,pin=12,func=4\"\n").utf8), to: profile)
        let missing = try await selftest(["--board", profile, "--non-interactive", "--only", "light"])
        #expect(missing.exitStatus == 1)
        #expect(missing.standardOutput.contains("FAIL  light: /sys/class/pwm/*: device 1f00098000.pwm: not available"), "\(missing.standardOutput)")
        #expect(missing.standardOutput.contains("dtoverlay=pwm,pin=12,func=4"))
        let none = try await selftest(["--board", "rpi4b", "--non-interactive", "--only", "light"])
        #expect(none.exitStatus == 1)
        #expect(none.standardOutput.contains("FAIL  light: this board has no sunrise light: its profile has no [light] table"))
    }

    @Test func soundPlaysThroughALSAAndAMissingVolumeControlIsNamed() async throws {
        let directory = try TemporaryDirectory()
        let profile = """
            [gpio]
            chip = "gpiochip9"
            stop = 1
            snooze = 2
            led = 3
            [display]
            bus = 9
            [sound]
            device = "null"

            """
        let plain = directory.path + "/null-sound.toml"
        try TestFiles.write(Array(profile.utf8), to: plain)
        // ALSA's `null` device exists everywhere: the tone really goes through libasound.
        let played = try await selftest(["--board", plain, "--non-interactive", "--only", "sound"])
        #expect(played.exitStatus == 0, "\(played.standardOutput)")
        #expect(played.standardOutput.contains("PASS  sound: tone played"))

        let withMixer = directory.path + "/with-mixer.toml"
        try TestFiles.write(Array((profile + "mixer = \"PCM\"\ncard = \"hw:CARD=alarmdNoSuchCard\"\n").utf8), to: withMixer)
        let missing = try await selftest(["--board", withMixer, "--non-interactive", "--only", "sound"])
        #expect(missing.exitStatus == 1)
        #expect(missing.standardOutput.contains("FAIL  sound: volume control: hw:CARD=alarmdNoSuchCard mixer PCM: not available"))
        #expect(missing.standardOutput.contains("hint: `amixer -c CARD scontrols`"))
        // A control device, as snd_mixer_attach takes it: the bare id is what alsa-lib refuses.
        #expect(missing.standardOutput.contains("`sound.card = \"hw:CARD=Headphones\"` (with that id)"))
    }

    @Test func onlyChecksTheNamedParts() async throws {
        let result = try await selftest(["--board", "rpi4b", "--non-interactive", "--only", "display", "--only", "led"])
        #expect(result.exitStatus == 1)
        #expect(result.standardOutput.contains("FAIL  led:"))
        #expect(result.standardOutput.contains("FAIL  display:"))
        #expect(!result.standardOutput.contains("sound:"))
        #expect(!result.standardOutput.contains("buttons:"))
    }

    @Test func aBadProfileStopsBeforeAnyHardwareWithFileLineAndKey() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/broken.toml"
        try TestFiles.write(Array("name = \"broken\"\n[gpio]\nchip = \"gpiochip0\"\nstop = \"GPIO17\"\nsnooze = 27\nled = true\n".utf8), to: path)
        let result = try await selftest(["--board", path, "--non-interactive"])
        #expect(result.exitStatus == 78)
        #expect(result.standardError.hasPrefix("alarmd: \(path):6: gpio.led:"), "\(result.standardError)")
        #expect(result.standardOutput.isEmpty)

        let unknown = try await selftest(["--board", "rpi6", "--non-interactive"])
        #expect(unknown.exitStatus == 78)
        #expect(unknown.standardError.contains("no board profile named \"rpi6\"; available: qemu, rpi3bplus, rpi4b, rpi5, simulated, zero2w"))
    }

    @Test func withoutABoardTheServicesConfigurationSaysWhich() async throws {
        let directory = try TemporaryDirectory()
        let config = directory.path + "/alarmd.toml"
        try TestFiles.write(Array("board = \"simulated\"\nsocket = \"\(directory.path)/none.sock\"\n".utf8), to: config)
        let result = try await selftest(["--config", config, "--non-interactive", "--only", "led"])
        #expect(result.exitStatus == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("Self-test of simulated ("))

        try TestFiles.write(Array("board = \"rpi6\"\n".utf8), to: config)
        let unknown = try await selftest(["--config", config, "--non-interactive"])
        #expect(unknown.exitStatus == 78)
        #expect(unknown.standardError.contains("no board profile named \"rpi6\""), "\(unknown.standardError)")
    }

    @Test func badArgumentsAreUsageErrors() async throws {
        let result = try await selftest(["--board", "simulated", "--only", "speaker"])
        #expect(result.exitStatus == 64)
        #expect(result.standardError.contains("--only \"speaker\" is not led, display, light, sound, buttons or rtc"))
    }

    // MARK: - --simulate --script

    @Test func aScriptPrintsEachStepAndTheSummaryAndItsStatusSaysIfAnyFailed() async throws {
        let directory = try TemporaryDirectory()
        let passing = directory.path + "/pass.scenario"
        try TestFiles.write(Array("start 2026-11-23 06:59 Europe/Berlin\nalarm wake at 07:00\nwait 1m\nexpect sound tone\n".utf8), to: passing)
        let ok = try await ChildProcess.run(Self.alarmd, ["--simulate", "--script", passing])
        #expect(ok.exitStatus == 0)
        #expect(ok.standardOutput.hasSuffix("3 passed, 0 failed\n"), "\(ok.standardOutput)")

        let failing = directory.path + "/fail.scenario"
        try TestFiles.write(Array("start 2026-11-23 06:59 Europe/Berlin\nexpect sound tone\n".utf8), to: failing)
        let failed = try await ChildProcess.run(Self.alarmd, ["--simulate", "--script", failing])
        #expect(failed.exitStatus == 1)
        #expect(failed.standardOutput.contains("FAIL  expect sound tone  (line 2): silent"))
        #expect(failed.standardOutput.hasSuffix("0 passed, 1 failed\n"))
    }

    @Test func aScriptThatDoesNotParseRunsNothingAndNamesTheLine() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/bad.scenario"
        try TestFiles.write(Array("start 2026-11-23 06:59 Europe/Berlin\nwait forever\n".utf8), to: path)
        let result = try await ChildProcess.run(Self.alarmd, ["--simulate", "--script", path])
        #expect(result.exitStatus == 65)
        #expect(result.standardError == "alarmd: \(path):2: \"forever\" is not a duration like 9m, 90s or 1h30m\n")
        #expect(result.standardOutput.isEmpty)

        let missing = try await ChildProcess.run(Self.alarmd, ["--simulate", "--script", directory.path + "/none.scenario"])
        #expect(missing.exitStatus == 66)
    }

    @Test func theSimulatorNeedsATerminal() async throws {
        let result = try await ChildProcess.run(Self.alarmd, ["--simulate"])
        #expect(result.exitStatus == 64)
        #expect(result.standardError.contains("--simulate needs a terminal"))
    }
}
