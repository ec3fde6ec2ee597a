import AlarmClient
import AlarmKitCore
import AlarmModel
import ArgumentParser
import FoundationEssentials

/// `--fade` and `--volume`: how one alarm wakes (``AlarmWake``), for `schedule` and `wake`.
struct WakeOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Fade the sound in over this long, up to 45m (0 for full at once; default: the household's).", valueName: "DURATION"))
    var fade: String?

    @Option(help: ArgumentHelp(
        "The loudest it gets, 0 to 100% as alsamixer shows it (default: the household's).", valueName: "PERCENT"))
    var volume: String?

    @Option(help: ArgumentHelp(
        "Start the sunrise light this long before it, up to 1h (0 for none; default: the household's).", valueName: "DURATION"))
    var light: String?

    var isEmpty: Bool { fade == nil && volume == nil && light == nil }

    /// `current` changed by the options: each one given replaces its field, `default` clears it;
    /// a percentage spans `scale` (the clock's, ``DaemonSession/volumeScale()``).
    func applied(to current: AlarmWake?, scale: ClosedRange<Double> = AlarmWake.volumeRange) throws -> AlarmWake {
        var wake = current ?? AlarmWake()
        if let fade {
            wake.crescendoSeconds = fade == "default" ? nil : try Self.length(fade, option: "--fade", in: AlarmWake.crescendoRange, longest: "45m")
        }
        if let volume {
            wake.volumeDB = volume == "default" ? nil : VolumePercent.decibels(percent: try Self.percent(volume), scale: scale)
        }
        if let light {
            wake.lightLeadSeconds = light == "default" ? nil : try Self.length(light, option: "--light", in: AlarmWake.lightLeadRange, longest: "1h")
        }
        do {
            try wake.validate()
        } catch {
            throw CommandFailure.usage(error.description)
        }
        return wake
    }

    /// A length for `option`, `0` included, within `range` (`longest` names its end for people).
    static func length(_ text: String, option: String, in range: ClosedRange<Double>, longest: String) throws -> TimeInterval {
        if text == "0" { return 0 }
        let seconds = try TimeText.duration(text, option: option)
        guard range.contains(seconds) else {
            throw CommandFailure.usage("invalid \(option) \"\(text)\": at most \(longest)")
        }
        return seconds
    }

    static func percent(_ text: String) throws -> Double {
        let digits = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard let percent = Double(digits), percent.isFinite, (0...100).contains(percent) else {
            throw CommandFailure.usage("invalid --volume \"\(text)\": expected a percentage from 0 to 100, such as 60%")
        }
        return percent
    }

    /// `fades in over 20m, to 60%, the light from 30m before`, each part the household's where
    /// the alarm sets none.
    static func describe(_ wake: AlarmWake?, scale: ClosedRange<Double>) -> String {
        let fade = wake?.crescendoSeconds.map { $0 == 0 ? "full at once" : "fades in over \(TimeText.length($0))" }
            ?? "the household's fade-in"
        let volume = wake?.volumeDB.map { "to \(VolumePercent.percent(decibels: $0, scale: scale))%" } ?? "to the household's volume"
        let light = wake?.lightLeadSeconds.map { $0 == 0 ? "no sunrise light" : "the light from \(TimeText.length($0)) before" }
            ?? "the household's sunrise"
        return fade + ", " + volume + ", " + light
    }
}

struct WakeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wake",
        abstract: "Set how one of your alarms wakes: its fade-in, loudest volume and sunrise light.",
        discussion: """
            Beyond AlarmKit, like disable and skip: --fade DURATION (0 to 45m) is how long the \
            sound takes to rise from a soft start, evenly to the ear; --volume PERCENT is the \
            loudest it gets, as alsamixer shows volumes; --light DURATION (0 to 1h) is how long \
            before it the sunrise light starts to rise, on a clock with one. `default` for any gives it back to \
            the household's setting (the page's settings; AlarmKit apps' alarms always use those). \
            An alarm ringing now keeps its ramp; the next alert plays the new one. Without \
            options, prints how it wakes.
            """
    )

    @Argument(help: ArgumentHelp("The alarm's id or a prefix of it that is unique among your alarms.", valueName: "ID"))
    var id: String

    @OptionGroup var wake: WakeOptions

    @OptionGroup var connection: SocketOptions

    func run() async throws {
        let key = try AlarmIDPrefix(id)
        _ = try wake.applied(to: nil)
        let session = try await connection.connect()
        defer { session.close() }
        let view = try await session.resolve(key)
        let scale = await session.volumeScale()
        guard !wake.isEmpty else {
            print("\(view.id.uuidString): \(WakeOptions.describe(view.record?.wake, scale: scale))")
            return
        }
        let changed = try wake.applied(to: view.record?.wake, scale: scale)
        try await session.call { try await $0.setWake(changed, id: view.id) }
        print("Wakes \(view.id.uuidString)\(view.title.map { " \"\(TerminalText.escaped($0))\"" } ?? ""): \(WakeOptions.describe(changed, scale: scale))")
    }
}
