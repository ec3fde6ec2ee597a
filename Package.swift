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
        .executable(name: "alarmctl", targets: ["alarmctl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // Linux interfaces Swift's Glibc module leaves out (timerfd, CLOCK_BOOTTIME helpers).
        .target(name: "CLinuxSupport"),
        .target(
            name: "AlarmTime",
            dependencies: ["CLinuxSupport"]
        ),
        .target(name: "AlarmKit"),
        // The hardware abstraction layer: small protocols and their values; no alarms, no backends.
        .target(name: "AlarmHardware", dependencies: ["AlarmTime"]),
        .target(
            name: "AlarmEngine",
            dependencies: [
                "AlarmKit",
                "AlarmTime",
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The appliance: engine states to LED, sound and display; buttons to engine actions.
        .target(
            name: "AlarmAppliance",
            dependencies: ["AlarmEngine", "AlarmHardware", "AlarmKit", "AlarmTime"]
        ),
        .target(
            name: "AlarmSimulator",
            dependencies: ["AlarmTime", "AlarmHardware"]
        ),
        .executableTarget(
            name: "alarmctl",
            dependencies: [
                "AlarmTime",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Helpers shared by the test targets: child processes, temporary directories.
        .target(name: "AlarmTestKit", path: "Tests/AlarmTestKit"),
        // A child process for the crash-safety test: applies changes until it is killed.
        .executableTarget(
            name: "alarm-store-crash-child",
            dependencies: [
                "AlarmEngine", "AlarmKit", "AlarmTime", "AlarmSimulator", "AlarmTestKit",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/StoreCrashChild"
        ),
        // `swift run -c release alarm-benchmarks`: the figures in BENCHMARKS.md.
        .executableTarget(
            name: "alarm-benchmarks",
            dependencies: [
                "AlarmEngine", "AlarmKit", "AlarmTime", "AlarmTestKit",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/AlarmBenchmarks"
        ),
        .testTarget(name: "AlarmTimeTests", dependencies: ["AlarmTime", "AlarmTestKit"]),
        .testTarget(name: "AlarmKitTests", dependencies: ["AlarmKit"]),
        .testTarget(
            name: "AlarmEngineTests",
            dependencies: [
                "AlarmEngine", "AlarmKit", "AlarmTime", "AlarmSimulator", "AlarmTestKit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "AlarmSimulatorTests", dependencies: ["AlarmSimulator", "AlarmTime", "AlarmHardware"]),
        .testTarget(name: "AlarmHardwareTests", dependencies: ["AlarmHardware", "AlarmTestKit"]),
        .testTarget(name: "AlarmApplianceTests", dependencies: ["AlarmAppliance", "AlarmHardware"]),
        .testTarget(name: "alarmctlTests", dependencies: ["AlarmTime", "AlarmTestKit"]),
    ],
    swiftLanguageModes: [.v6]
)
