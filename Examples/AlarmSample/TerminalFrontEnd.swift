// The terminal in place of the sample's SwiftUI views: AlarmAddView's form becomes the `alarm`
// and `timer` commands, ContentView's list of AlarmCells the printed rows, and the widget's
// pause, resume and stop buttons the commands of those names. This file is the port's own.

import AlarmKit

/// Runs one command per line against the ``ViewModel`` and prints its alarms as they change.
///
/// A command names an alarm by its number, which the terminal gives each alarm the first time it
/// sees it and never reuses, or by the start of its id.
actor TerminalFrontEnd {
    static let help = """
        alarm HH:MM [DAYS] [LABEL] [OPTIONS]  an alarm at HH:MM, once or on DAYS (mon,wed,fri)
        timer DURATION [LABEL] [OPTIONS]      a timer that starts now (90s, 5m, 1h30m)
          --repeat[=DURATION]  the alert's second button repeats it (by default after 15m)
          --open               the alert's second button opens this app
          --before=DURATION    an alarm counts down for DURATION before it alerts
        list                   the alarms: [number], label, schedule, state, id
        pause N, resume N      pauses or resumes a countdown, as the widget's buttons do
        repeat N               an alerting alarm counts down again
        stop N                 stops a counting-down, paused or alerting alarm
        cancel N               deletes the alarm
        help, quit             (end of input quits too)
        N is an alarm's [number] or the start of its id.
        """

    private let viewModel: ViewModel
    /// The number each alarm seen so far was given.
    private var numbers: [Alarm.ID: Int] = [:]
    /// What was printed last of each alarm in the view model.
    private var shown: [Alarm.ID: Row] = [:]

    /// What the printing task handles, in order: it alone reads the view model's alarms and
    /// prints them, so each map it prints is as new as the one before or newer.
    private enum Event: Sendable {
        /// The view model's alarms changed.
        case changed
        /// A command has finished: print what it changed, then resume it.
        case settled(CheckedContinuation<Void, Never>)
    }

    private let events = AsyncStream.makeStream(of: Event.self)
    private var printing: Task<Void, Never>?
    /// Whether a command is running: its changes print once it has finished, as one change (a
    /// new alarm can come in an update before `schedule` returns, and get its label after).
    private var running = false

    init(viewModel: ViewModel) {
        self.viewModel = viewModel
    }

    /// Prints the alarms there are, then starts printing their changes.
    func start() async {
        print("AlarmKit sample: type help for the commands.")
        Task {
            for await _ in viewModel.changes.stream {
                events.continuation.yield(.changed)
            }
        }
        printing = Task {
            // A finished command waits here until the update it caused has reached the view model:
            // printed earlier, an update still on its way would bring a cancelled alarm back for a
            // moment (as "Alarm (Old Session)", Apple's label for an alarm it did not schedule).
            var settling: CheckedContinuation<Void, Never>?
            for await event in events.stream {
                switch event {
                case .changed where settling == nil:
                    if !running { show(await viewModel.alarmsMap) }
                case .changed:
                    break
                case .settled(let command):
                    settling = command
                }
                if let command = settling, await isUpToDate() {
                    settling = nil
                    running = false
                    show(await viewModel.alarmsMap)
                    command.resume()
                }
            }
            settling?.resume()
        }
        running = true
        // ContentView's `onAppear`.
        await viewModel.fetchAlarms()
        await settle()
    }

    /// Whether the view model has the daemon's list as it is now; an unreachable daemon has
    /// nothing more to send.
    private func isUpToDate() async -> Bool {
        guard let current = try? AlarmManager.shared.alarms else { return true }
        return await viewModel.latestUpdate == current
    }

    /// Prints the changes not printed yet, then stops printing.
    func finish() async {
        events.continuation.finish()
        await printing?.value
    }

    /// Runs one command line, then prints what it changed; `false` once the person asked to
    /// quit.
    func run(_ line: String) async -> Bool {
        running = true
        let goOn = await perform(line)
        await settle()
        return goOn
    }

    /// Returns once the printing task has printed the alarms as they are now.
    private func settle() async {
        await withCheckedContinuation { events.continuation.yield(.settled($0)) }
    }

    /// Runs one command line; `false` for `quit`. An error is one line.
    private func perform(_ line: String) async -> Bool {
        let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let command = words.first?.lowercased(), !command.hasPrefix("#") else { return true }
        let arguments = Array(words.dropFirst())
        do {
            switch command {
            case "alarm":
                let form = try Self.alarmForm(arguments)
                await viewModel.scheduleAlarm(with: form).value
            case "timer":
                let form = try Self.timerForm(arguments)
                await viewModel.scheduleAlarm(with: form).value
            case "list":
                await list()
            case "pause":
                try await change(arguments) { _ = try PauseIntent(alarmID: $0.uuidString).perform() }
            case "resume":
                try await change(arguments) { _ = try ResumeIntent(alarmID: $0.uuidString).perform() }
            case "repeat":
                try await change(arguments) { _ = try RepeatIntent(alarmID: $0.uuidString).perform() }
            case "stop":
                // Not StopIntent: on this device that is the notice of a stop the device made.
                try await change(arguments) { try AlarmManager.shared.stop(id: $0) }
            case "cancel":
                let id = try await alarmID(arguments)
                await viewModel.unscheduleAlarm(with: id)
            case "help":
                print(Self.help)
            case "quit":
                return false
            default:
                throw CommandError("unknown command \(command) (type help)")
            }
        } catch {
            print("error: \(error)")
        }
        return true
    }

    // MARK: Commands

    private func list() async {
        await viewModel.fetchAlarms()
        let rows = numbered(await viewModel.alarmsMap)
        print(rows.isEmpty ? "No alarms." : rows.count == 1 ? "1 alarm:" : "\(rows.count) alarms:")
        for row in rows {
            print("[\(row.number)] \(row.text)  id \(row.id.uuidString.prefix(8))")
        }
    }

    /// Applies `action` to alarm `N`, then reads the alarms, so that the change shows before the
    /// next command.
    private func change(_ arguments: [String], _ action: (Alarm.ID) async throws -> Void) async throws {
        try await action(try await alarmID(arguments))
        await viewModel.fetchAlarms()
    }

    /// The alarm the one argument names: a number the terminal gave, or the start of an id.
    private func alarmID(_ arguments: [String]) async throws -> Alarm.ID {
        guard arguments.count == 1, let name = arguments.first else {
            throw CommandError("name one alarm, by its number or the start of its id")
        }
        let ids = await viewModel.alarmsMap.keys
        if let number = Int(name) {
            guard let id = ids.first(where: { numbers[$0] == number }) else {
                throw CommandError("no alarm [\(number)] (see list)")
            }
            return id
        }
        let matches = ids.filter { $0.uuidString.lowercased().hasPrefix(name.lowercased()) }
        guard matches.count == 1, let id = matches.first else {
            throw CommandError(matches.isEmpty ? "no alarm with an id starting \(name)" : "more than one alarm's id starts \(name)")
        }
        return id
    }

    // MARK: Printing

    /// An alarm as printed, without its number.
    private struct Row {
        var id: Alarm.ID
        var number: Int
        var label: String
        var text: String
    }

    /// Prints the alarms added, changed and removed since the last `alarmsMap` shown.
    private func show(_ alarmsMap: ViewModel.AlarmsMap) {
        for old in shown.values.sorted(by: { $0.number < $1.number }) where alarmsMap[old.id] == nil {
            print("removed [\(old.number)] \(old.label)")
            shown[old.id] = nil
        }
        for row in numbered(alarmsMap) where shown[row.id]?.text != row.text {
            print("\(shown[row.id] == nil ? "added" : "changed") [\(row.number)] \(row.text)")
            shown[row.id] = row
        }
    }

    /// The rows of `alarmsMap` by number; an alarm seen for the first time gets the next number.
    private func numbered(_ alarmsMap: ViewModel.AlarmsMap) -> [Row] {
        for id in alarmsMap.keys.sorted(by: { $0.uuidString < $1.uuidString }) where numbers[id] == nil {
            numbers[id] = numbers.count + 1
        }
        return alarmsMap.map { id, entry in
            Row(id: id, number: numbers[id] ?? 0, label: entry.1, text: Self.text(entry.0, label: entry.1))
        }
        .sorted { $0.number < $1.number }
    }

    /// What ContentView's AlarmCell shows, and the buttons the widget offers in the alarm's state.
    static func text(_ alarm: Alarm, label: String) -> String {
        var words = [label]
        switch alarm.schedule {
        case .relative(let relative):
            words.append("\(twoDigits(relative.time.hour)):\(twoDigits(relative.time.minute))")
            switch relative.repeats {
            case .never: words.append("once")
            case .weekly(let days): words.append(week.filter(days.contains).map(shortName).joined(separator: ","))
            }
        case .fixed(let date):
            words.append("at \(date)")
        case nil:
            break
        }
        if let preAlert = alarm.countdownDuration?.preAlert {
            words.append(alarm.schedule == nil ? "timer \(duration(preAlert))" : "countdown \(duration(preAlert))")
        }
        if let postAlert = alarm.countdownDuration?.postAlert {
            words.append("repeat \(duration(postAlert))")
        }
        switch alarm.state {
        case .scheduled: words.append("SCHEDULED")
        case .countdown: words.append("RUNNING (pause, stop)")
        case .paused: words.append("PAUSED (resume, stop)")
        case .alerting: words.append(alarm.countdownDuration == nil ? "ALERT (stop)" : "ALERT (stop, repeat)")
        }
        return words.joined(separator: "  ")
    }

    static func duration(_ seconds: TimeInterval) -> String {
        let total = Int(seconds.rounded())
        let (hours, minutes, rest) = (total / 3600, total % 3600 / 60, total % 60)
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(rest))" : "\(minutes):\(twoDigits(rest))"
    }

    static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    // MARK: Reading commands

    /// The form AlarmAddView would fill in for `alarm HH:MM [DAYS] [LABEL] [OPTIONS]`.
    static func alarmForm(_ arguments: [String]) throws -> AlarmForm {
        var words = arguments.filter { !$0.hasPrefix("--") }
        let options = arguments.filter { $0.hasPrefix("--") }
        guard let time = words.first.flatMap(clockTime) else {
            throw CommandError("alarm needs a time, HH:MM")
        }
        words.removeFirst()
        var form = AlarmForm()
        guard let date = Calendar.current.date(bySettingHour: time.hour, minute: time.minute, second: 0, of: Date.now) else {
            throw CommandError("\(arguments[0]) does not occur today")
        }
        form.selectedDate = date
        form.scheduleEnabled = true
        if let days = words.first.flatMap(days) {
            form.selectedDays = days
            words.removeFirst()
        }
        form.label = words.joined(separator: " ")
        try apply(options, to: &form, allowingBefore: true)
        return form
    }

    /// The form AlarmAddView would fill in for `timer DURATION [LABEL] [OPTIONS]`.
    static func timerForm(_ arguments: [String]) throws -> AlarmForm {
        var words = arguments.filter { !$0.hasPrefix("--") }
        let options = arguments.filter { $0.hasPrefix("--") }
        guard let seconds = words.first.flatMap(seconds) else {
            throw CommandError("timer needs a duration, such as 90s, 5m or 1h30m")
        }
        words.removeFirst()
        var form = AlarmForm()
        form.preAlertEnabled = true
        form.selectedPreAlert = interval(seconds)
        form.label = words.joined(separator: " ")
        try apply(options, to: &form, allowingBefore: false)
        guard form.isValidAlarm else { throw CommandError("a timer needs a duration above zero") }
        return form
    }

    private static func apply(_ options: [String], to form: inout AlarmForm, allowingBefore: Bool) throws {
        for option in options {
            let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
            let name = parts[0]
            let value = parts.count > 1 ? parts[1] : nil
            switch (name, value) {
            case ("--repeat", let value):
                form.selectedSecondaryButton = .countdown
                if let value { form.selectedPostAlert = interval(try duration(value, for: name)) }
            case ("--open", nil):
                form.selectedSecondaryButton = .openApp
            case ("--before", let value?) where allowingBefore:
                form.preAlertEnabled = true
                form.selectedPreAlert = interval(try duration(value, for: name))
            default:
                throw CommandError("unknown option \(option) (type help)")
            }
        }
        if options.contains(where: { $0.hasPrefix("--repeat") }) && options.contains("--open") {
            throw CommandError("--repeat and --open are the same button: choose one")
        }
    }

    private static func duration(_ text: String, for option: String) throws -> Int {
        guard let seconds = seconds(text), seconds > 0 else {
            throw CommandError("\(option) needs a duration above zero, such as 90s, 5m or 1h30m")
        }
        return seconds
    }

    private static func interval(_ seconds: Int) -> CountdownInterval {
        CountdownInterval(hour: seconds / 3600, min: seconds % 3600 / 60, sec: seconds % 60)
    }

    /// `90`, `90s`, `5m`, `1h30m`: seconds, at most a week.
    static func seconds(_ text: String) -> Int? {
        if let plain = Int(text) { return (0...604_800).contains(plain) ? plain : nil }
        var total = 0
        var digits = ""
        for character in text {
            if character.isASCII && character.isNumber {
                digits.append(character)
                continue
            }
            let unit = ["h": 3600, "m": 60, "s": 1][character.lowercased()]
            guard let unit, let value = Int(digits), digits.count <= 6 else { return nil }
            total += value * unit
            digits = ""
        }
        return digits.isEmpty && total <= 604_800 ? total : nil
    }

    /// `7:30` or `07:30`.
    static func clockTime(_ text: String) -> (hour: Int, minute: Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]),
              (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        return (hour, minute)
    }

    /// `mon,wed,fri`: days by their first three letters or more.
    static func days(_ text: String) -> Set<Locale.Weekday>? {
        var days = Set<Locale.Weekday>()
        for part in text.lowercased().split(separator: ",", omittingEmptySubsequences: false) {
            guard part.count >= 3, let day = week.first(where: { fullName($0).hasPrefix(part) }) else { return nil }
            days.insert(day)
        }
        return days
    }

    /// Monday first, as a week on a bedside clock.
    static let week: [Locale.Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday]

    static func fullName(_ day: Locale.Weekday) -> String {
        switch day {
        case .monday: "monday"
        case .tuesday: "tuesday"
        case .wednesday: "wednesday"
        case .thursday: "thursday"
        case .friday: "friday"
        case .saturday: "saturday"
        case .sunday: "sunday"
        }
    }

    static func shortName(_ day: Locale.Weekday) -> String {
        let name = fullName(day)
        return name.prefix(1).uppercased() + name.dropFirst().prefix(2)
    }
}

/// A command that cannot run, said in one line.
struct CommandError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
