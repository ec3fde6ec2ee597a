// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "alarmd",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AlarmKit", targets: ["AlarmKit"]),
        .library(name: "AlarmEngine", targets: ["AlarmEngine"]),
        .library(name: "AlarmTime", targets: ["AlarmTime"]),
        .library(name: "AlarmHardware", targets: ["AlarmHardware"]),
        .library(name: "AlarmAppliance", targets: ["AlarmAppliance"]),
        .library(name: "AlarmSimulator", targets: ["AlarmSimulator"]),
        .library(name: "AlarmScenario", targets: ["AlarmScenario"]),
        .executable(name: "alarmctl", targets: ["alarmctl"]),
        .executable(name: "alarmd", targets: ["alarmd"]),
        .executable(name: "alarm-sample", targets: ["alarm-sample"]),
        .executable(name: "alarm-web", targets: ["alarm-web"]),
        .executable(name: "alarm-mqtt", targets: ["alarm-mqtt"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
    ],
    targets: [
        // Linux interfaces Swift's Glibc module leaves out (timerfd, eventfd, CLOCK_BOOTTIME, adjtimex),
        // in C, for LinuxSupport. C with one user sits beside it: CUnixSocket, CI2C, CTerminal.
        .target(name: "CLinuxSupport"),
        // The version every program and the package show: `deploy/version`'s, through the plugin
        // (see Plugins/VersionPlugin for why a prebuild command).
        .plugin(name: "VersionPlugin", capability: .buildTool()),
        .target(name: "BuildVersion", plugins: ["VersionPlugin"]),
        // Swift over them: threads of our own for blocking work, inotify, the shared realtime timer,
        // eventfd signals, whole writes and whole-file reads.
        .target(name: "LinuxSupport", dependencies: ["CLinuxSupport"]),
        // Time zones from the tz database, ISO 8601 with offsets, and the wall clock; no C.
        .target(
            name: "AlarmTime",
            dependencies: ["AlarmModel", "LinuxSupport"]
        ),
        // AlarmKit's types and `AlarmManager` over any backend, without a backend: what the engine
        // implements and the wire format carries.
        .target(name: "AlarmKitCore"),
        // The device's domain model, Foundation only: alarm records and their phases, occurrences,
        // missed alarms, history entries, client identity and keys, the commands, and civil dates
        // and times. What the engine keeps and the wire carries; it knows neither.
        .target(name: "AlarmModel", dependencies: ["AlarmKitCore"]),
        // The hardware abstraction layer: small protocols and their values; no alarms, no backends.
        .target(name: "AlarmHardware"),
        // The control socket's protocol, shared by the daemon and its clients: the messages, strict
        // JSON validation with Foundation's coders, the error codes and the Unix socket plumbing
        // both ends use. The alarm records and history entries it carries are AlarmModel's.
        .target(name: "AlarmProtocol", dependencies: ["AlarmKitCore", "AlarmModel", "CUnixSocket", "LinuxSupport"]),
        // The socket calls Swift's Glibc module lacks (accept4, SO_PEERCRED's ucred), in C: the
        // control socket's server and its clients, and nothing else.
        .target(name: "CUnixSocket"),
        // The client of the control socket: `ControlClient` and `SocketAlarmBackend` (the AlarmKit
        // API over the socket). No engine in a client's link.
        .target(name: "AlarmClient", dependencies: ["AlarmKitCore", "AlarmModel", "AlarmProtocol", "LinuxSupport"]),
        // What an app imports: AlarmKitCore, Foundation's value types, and `AlarmManager.shared`
        // over this device's alarmd.
        .target(name: "AlarmKit", dependencies: ["AlarmKitCore", "AlarmClient", "AlarmProtocol"]),
        // The engine: the pure scheduler, the runtime actor, the durable store and the intents'
        // mailbox, on the model; neither the wire nor any hardware (Tests/check-import-graph).
        .target(
            name: "AlarmEngine",
            dependencies: [
                "AlarmKitCore",
                "AlarmModel",
                "AlarmTime",
                "LinuxSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The appliance: engine states to LED, sound and display; buttons to engine actions. Of the
        // hardware it knows only the HAL, and not the wire (Tests/check-import-graph).
        .target(
            name: "AlarmAppliance",
            dependencies: [
                "AlarmEngine", "AlarmHardware", "AlarmKitCore", "AlarmModel", "AlarmTime",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "AlarmSimulator",
            dependencies: ["AlarmTime", "AlarmHardware"]
        ),
        // libasound (ALSA), through a one-line shim header.
        .systemLibrary(
            name: "CALSA",
            pkgConfig: "alsa",
            providers: [.apt(["libasound2-dev"])]
        ),
        // libsndfile: alarm sounds in WAV, FLAC, Ogg Vorbis, Opus and MP3, decoded as a stream.
        .systemLibrary(
            name: "CSndFile",
            pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"])]
        ),
        // libmosquitto: the MQTT connection of the alarm-mqtt bridge (MQTT 3.1.1, TCP or TLS).
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        // One MQTT connection kept up on a thread of its own, for the bridge to the home's broker.
        .target(
            name: "AlarmMQTT",
            dependencies: [
                "AlarmClient", "AlarmModel", "AlarmProtocol", "AlarmTime", "CMosquitto", "LinuxSupport", "TOMLConfig",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `alarm-mqtt`: the clock on an MQTT broker (Home Assistant), a separate process and user,
        // a client of alarmd's socket.
        .executableTarget(
            name: "alarm-mqtt",
            dependencies: [
                "AlarmClient", "AlarmMQTT", "AlarmTime", "BuildVersion", "JournalLogging", "LinuxSupport", "TOMLConfig",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // Sound files for alarms: read as a stream of frames for playing, checked when chosen.
        .target(name: "AlarmSoundFile", dependencies: ["CSndFile"]),
        // What Swift cannot write itself: ALSA's variadic error handler, defined once for the process.
        .target(name: "CALSAShim", dependencies: ["CALSA"]),
        // The ALSA backend of `AudioOutput`: a writer thread per playback, gain ramp in software.
        .target(
            name: "AlarmALSA",
            dependencies: ["AlarmHardware", "AlarmSoundFile", "AlarmTime", "CALSA", "CALSAShim", "LinuxSupport"]
        ),
        // libgpiod, v1 (Debian/Raspberry Pi OS bookworm) or v2 (trixie): whichever pkg-config finds.
        .systemLibrary(
            name: "CGPIOD",
            pkgConfig: "libgpiod",
            providers: [.apt(["libgpiod-dev"])]
        ),
        // One small C API over both libgpiod versions, chosen at build time from the headers.
        .target(name: "CGPIOShim", dependencies: ["CGPIOD"]),
        // The libgpiod backends of `ButtonInput` and `Indicator`.
        .target(
            name: "AlarmGPIO",
            dependencies: ["AlarmHardware", "AlarmTime", "CGPIOShim", "LinuxSupport"]
        ),
        // The HD44780 character LCD behind a PCF8574 I2C backpack: the `CharacterDisplay` backend.
        .target(
            name: "AlarmLCD",
            dependencies: ["AlarmHardware", "CI2C", "LinuxSupport"]
        ),
        // The sunrise light on the kernel's PWM sysfs interface: the `DimmableLight` backend.
        .target(
            name: "AlarmPWM",
            dependencies: ["AlarmHardware", "LinuxSupport"]
        ),
        // The kernel's i2c-dev calls (ioctl is variadic, so not callable from Swift), for AlarmLCD.
        .target(name: "CI2C"),
        // The configuration file format of `alarmd.toml` and the board profiles: a TOML subset,
        // read into typed values with `FILE:LINE: KEY: message` errors.
        .target(name: "TOMLConfig", dependencies: ["LinuxSupport"]),
        // Board profiles (`board/*.toml`): the parts' wiring, found by name or device-tree model.
        .target(
            name: "AlarmBoard",
            dependencies: ["AlarmHardware", "AlarmTime", "TOMLConfig"]
        ),
        // The control socket's server, for alarmd: connections, sessions, limits, on the engine.
        .target(
            name: "AlarmControl",
            dependencies: [
                "AlarmEngine", "AlarmKitCore", "AlarmModel", "AlarmProtocol", "AlarmTime", "BuildVersion", "CUnixSocket", "LinuxSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Log lines for the journal on stderr, with `<N>` priorities: alarmd's and alarm-web's.
        .target(name: "JournalLogging", dependencies: [.product(name: "Logging", package: "swift-log")]),
        // The daemon's pieces: configuration file, systemd notification, its own socket operations,
        // and the assembly (`AlarmDevice`) the service, the simulator and the scenario runner are built by.
        .target(
            name: "AlarmDaemon",
            dependencies: [
                "AlarmAppliance", "AlarmBoard", "AlarmControl", "AlarmEngine", "AlarmHardware", "AlarmKitCore", "AlarmModel", "AlarmProtocol",
                "AlarmSoundFile", "AlarmTime", "JournalLogging", "LinuxSupport", "TOMLConfig",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The simulator's terminal: raw keyboard input, the board drawn as text, restored on exit.
        .target(
            name: "SimulatorConsole",
            dependencies: ["AlarmHardware", "CTerminal", "LinuxSupport"]
        ),
        // Raw mode and its restoration from a signal handler (only async-signal-safe C may run
        // there), for SimulatorConsole.
        .target(name: "CTerminal"),
        // Plain-text scenarios run in virtual time against the whole appliance on fakes.
        .target(
            name: "AlarmScenario",
            dependencies: [
                "AlarmAppliance", "AlarmDaemon", "AlarmEngine", "AlarmHardware", "AlarmKitCore", "AlarmModel", "AlarmSimulator", "AlarmTime",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The daemon (`alarmd`: the service, `--simulate`, `selftest`) and its board wiring.
        .executableTarget(
            name: "alarmd",
            dependencies: [
                "AlarmALSA", "AlarmAppliance", "AlarmBoard", "AlarmClient", "AlarmControl", "AlarmDaemon", "AlarmEngine", "AlarmGPIO", "AlarmPWM", "BuildVersion",
                "AlarmHardware", "AlarmKitCore", "AlarmLCD", "AlarmModel", "AlarmProtocol", "AlarmScenario", "JournalLogging",
                "AlarmSimulator", "AlarmTime", "CUnixSocket", "LinuxSupport", "SimulatorConsole", "TOMLConfig",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "alarmctl",
            dependencies: [
                "AlarmClient", "AlarmKitCore", "AlarmModel", "AlarmProtocol", "AlarmTime", "BuildVersion", "CUnixSocket", "LinuxSupport", "WebPairings",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // The phone page's paired browsers on disk: written by alarm-web and by `alarmctl web`.
        .target(name: "WebPairings"),
        // The phone page's server: pairing, the JSON API and its event stream, over a strict HTTP/1.1
        // layer of its own on FlyingSocks (sockets; builds with the arm64 toolchain's Swift 6.0.3).
        .target(
            name: "AlarmWeb",
            dependencies: [
                "AlarmClient", "AlarmKitCore", "AlarmModel", "AlarmProtocol", "AlarmTime", "LinuxSupport", "WebPairings",
                .product(name: "FlyingSocks", package: "FlyingFox"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `alarm-web`: the phone page, a separate process and user, a client of alarmd's socket.
        .executableTarget(
            name: "alarm-web",
            dependencies: [
                "AlarmWeb", "BuildVersion", "JournalLogging", "LinuxSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // Apple's sample "Scheduling an alarm with AlarmKit", a terminal in place of its SwiftUI: only AlarmKit.
        .executableTarget(name: "alarm-sample", dependencies: ["AlarmKit"], path: "Examples/AlarmSample"),
        // What the tests need from C and the products do not: connecting as another user, pseudo-terminals.
        .target(name: "CTestSupport", dependencies: ["CUnixSocket"], path: "Tests/CTestSupport"),
        // Helpers shared by the test targets: child processes, temporary directories, connections
        // as another user.
        .target(
            name: "AlarmTestKit",
            dependencies: ["AlarmClient", "AlarmKitCore", "AlarmProtocol", "CSndFile", "CTestSupport", "LinuxSupport"],
            path: "Tests/AlarmTestKit"
        ),
        // A program that uses only `import AlarmKit`, as an app on the device does (AlarmKitAppTests).
        .executableTarget(name: "alarmkit-app-probe", dependencies: ["AlarmKit"], path: "Tests/AlarmKitAppProbe"),
        // A child process for the crash-safety test: applies changes until it is killed.
        .executableTarget(
            name: "alarm-store-crash-child",
            dependencies: [
                "AlarmEngine", "AlarmKitCore", "AlarmModel", "AlarmProtocol", "AlarmTime", "AlarmSimulator", "AlarmTestKit",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/StoreCrashChild"
        ),
        // `swift run -c release alarm-benchmarks`: the figures in BENCHMARKS.md.
        .executableTarget(
            name: "alarm-benchmarks",
            dependencies: [
                "AlarmALSA", "AlarmAppliance", "AlarmClient", "AlarmControl", "AlarmEngine", "AlarmHardware", "AlarmKitCore", "AlarmLCD", "AlarmModel",
                "AlarmProtocol", "AlarmScenario", "AlarmSimulator", "AlarmTime", "AlarmTestKit",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/AlarmBenchmarks"
        ),
        // `alarm-web-flood`: a hostile LAN host for alarm-web while a paired phone polls it
        // (Benchmarks/web-flood.sh; small enough to run in the QEMU guest).
        .executableTarget(
            name: "alarm-web-flood",
            dependencies: ["LinuxSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Benchmarks/WebFlood"
        ),
        // libFuzzer targets (the control protocol's decoder, alarmd.toml and board profiles, the store,
        // alarm-web's request reading): `Tests/Fuzz/run-fuzzers` builds this with `--sanitize fuzzer`
        // and runs each for a budget.
        .executableTarget(
            name: "alarm-fuzz",
            dependencies: ["AlarmBoard", "AlarmClient", "AlarmControl", "AlarmDaemon", "AlarmKitCore", "AlarmModel", "AlarmProtocol", "AlarmWeb", "TOMLConfig"],
            path: "Tests/Fuzz/alarm-fuzz"
        ),
        // The integration tests' measuring tool, run inside the QEMU guest (Tests/Integration):
        // timestamped capture from snd-aloop, gpio-sim presses and LED sampling, LCD bytes from
        // the kernel's smbus trace decoded to screen text.
        .target(name: "VMProbeKit", dependencies: ["CALSA", "CALSAShim"], path: "Tests/Integration/Probe/VMProbeKit"),
        .executableTarget(
            name: "alarm-vm-probe",
            dependencies: ["VMProbeKit", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tests/Integration/Probe/alarm-vm-probe"
        ),
        .testTarget(name: "AlarmTimeTests", dependencies: ["AlarmModel", "AlarmTime", "AlarmTestKit", "LinuxSupport"]),
        .testTarget(name: "LinuxSupportTests", dependencies: ["LinuxSupport"]),
        .testTarget(name: "AlarmKitTests", dependencies: ["AlarmKitCore"]),
        .testTarget(
            name: "AlarmEngineTests",
            dependencies: [
                "AlarmEngine", "AlarmKitCore", "AlarmModel", "AlarmProtocol", "AlarmTime", "AlarmSimulator", "AlarmTestKit", "LinuxSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            // Store directories written by earlier builds, read by the tests through #filePath.
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "AlarmSimulatorTests", dependencies: ["AlarmSimulator", "AlarmTime", "AlarmHardware"]),
        .testTarget(name: "AlarmHardwareTests", dependencies: ["AlarmHardware", "AlarmTestKit"]),
        .testTarget(
            name: "AlarmApplianceTests",
            dependencies: [
                "AlarmAppliance", "AlarmClient", "AlarmControl", "AlarmDaemon", "AlarmEngine", "AlarmHardware", "AlarmKitCore", "AlarmModel", "AlarmProtocol",
                "AlarmSimulator", "AlarmTime", "AlarmTestKit", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "AlarmALSATests",
            dependencies: ["AlarmALSA", "AlarmBoard", "AlarmHardware", "AlarmSimulator", "AlarmSoundFile", "AlarmTestKit", "CALSAShim"]),
        .testTarget(name: "AlarmSoundFileTests", dependencies: ["AlarmSoundFile", "AlarmTestKit"]),
        .testTarget(
            name: "AlarmMQTTTests",
            dependencies: [
                "AlarmAppliance", "AlarmClient", "AlarmControl", "AlarmDaemon", "AlarmEngine", "AlarmHardware", "AlarmKitCore",
                "AlarmModel", "AlarmMQTT", "AlarmProtocol", "AlarmSimulator", "AlarmTestKit", "AlarmTime", "LinuxSupport", "TOMLConfig",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "AlarmGPIOTests", dependencies: ["AlarmGPIO", "AlarmHardware", "AlarmTestKit", "LinuxSupport"]),
        .testTarget(name: "AlarmLCDTests", dependencies: ["AlarmLCD", "AlarmHardware", "AlarmTestKit"]),
        .testTarget(name: "AlarmPWMTests", dependencies: ["AlarmPWM", "AlarmHardware"]),
        .testTarget(name: "AlarmBoardTests", dependencies: ["AlarmBoard", "AlarmHardware", "AlarmTestKit", "AlarmTime", "TOMLConfig"]),
        .testTarget(name: "TOMLConfigTests", dependencies: ["TOMLConfig"]),
        .testTarget(
            name: "AlarmControlTests",
            dependencies: [
                "AlarmClient", "AlarmControl", "AlarmEngine", "AlarmKitCore", "AlarmModel", "AlarmProtocol", "AlarmSimulator", "AlarmTime", "AlarmTestKit",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "AlarmDaemonTests",
            dependencies: [
                "AlarmDaemon", "JournalLogging", "AlarmProtocol", "AlarmBoard", "TOMLConfig", "AlarmEngine", "AlarmAppliance", "AlarmSimulator",
                "AlarmTime", "LinuxSupport", "AlarmTestKit", "AlarmALSA", "AlarmHardware", "AlarmKitCore", "AlarmModel", "AlarmClient", "AlarmControl",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(name: "SimulatorConsoleTests", dependencies: ["SimulatorConsole", "AlarmHardware", "CTestSupport"]),
        .testTarget(
            name: "AlarmScenarioTests",
            dependencies: ["AlarmScenario", "AlarmTestKit"]
        ),
        .testTarget(
            name: "alarmctlTests",
            dependencies: [
                "AlarmClient", "AlarmControl", "AlarmEngine", "AlarmKitCore", "AlarmModel", "AlarmProtocol", "AlarmSimulator", "AlarmTime", "AlarmTestKit", "WebPairings",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `alarmd` as a person or a script runs it: the built executable, its output and status.
        .testTarget(name: "alarmdTests", dependencies: ["AlarmClient", "AlarmControl", "AlarmKitCore", "AlarmModel", "AlarmProtocol", "AlarmTestKit", "BuildVersion", "CTestSupport"]),
        .testTarget(
            name: "AlarmWebTests",
            dependencies: [
                "AlarmAppliance", "AlarmControl", "AlarmDaemon", "AlarmEngine", "AlarmHardware", "AlarmKitCore", "AlarmModel", "AlarmProtocol", "AlarmSimulator",
                "AlarmTestKit", "AlarmTime", "AlarmWeb", "LinuxSupport", "WebPairings", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "VMProbeKitTests", dependencies: ["VMProbeKit", "AlarmTestKit"]),
    ],
    swiftLanguageModes: [.v6]
)
