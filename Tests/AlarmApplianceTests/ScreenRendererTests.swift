import AlarmAppliance
import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmProtocol
import FoundationEssentials
import Glibc
import Testing

/// Exact frames for both display sizes. Rows are compared as `frame.description` prints them:
/// custom glyphs show as ① (bell), ② (snooze), ③ (pause), ④ (play).
@Suite struct ScreenRendererTests {
    static let small = ScreenRenderer(size: .sixteenByTwo)
    static let tall = ScreenRenderer(size: .twentyByFour)
    static let now = Scene.monday(6, 59, 30)
    static let blank20 = String(repeating: " ", count: 20)

    static func render(
        _ snapshot: DeviceSnapshot, on renderer: ScreenRenderer, showsNextAlarm: Bool = false, fault: String? = nil,
        since: Date? = nil
    ) -> ScreenRenderer.Output {
        renderer.render(.init(
            snapshot: snapshot, showsNextAlarm: showsNextAlarm, soundFault: fault, contentSince: since ?? snapshot.now))
    }

    static func rows(_ output: ScreenRenderer.Output) -> [String] {
        output.frame.description.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    static func close(_ date: Date?, _ expected: Date) -> Bool {
        date.map { abs($0.timeIntervalSince(expected)) < 1e-6 } ?? false
    }

    static func seconds(_ output: ScreenRenderer.Output, after now: Date) -> Double? {
        output.nextChange.map { $0.timeIntervalSince(now) }
    }

    // MARK: - The idle clock

    static let nextAlarms: [(due: Date, small: String, tall: String)] = [
        (Scene.monday(7, 0), "  ①Today 07:00  ", "①Today 07:00 Wake up"),
        (Scene.monday(7, 0).addingTimeInterval(86_400), "①Tomorrow 07:00 ", "①Tomorrow 07:00 Wake"),
        (Scene.monday(7, 0).addingTimeInterval(3 * 86_400), "   ①Thu 07:00   ", "①Thu 07:00 Wake up  "),
        (Scene.monday(7, 0).addingTimeInterval(7 * 86_400), " ①30 Nov 07:00  ", "①30 Nov 07:00 Wake u"),
        (Scene.at("2026-12-24T07:00:00+01:00"), " ①24 Dec 07:00  ", "①24 Dec 07:00 Wake u"),
    ]

    @Test(arguments: nextAlarms)
    func theIdleClockShowsTheTimeAndWhenTheNextAlarmIs(_ due: Date, _ small: String, _ tall: String) {
        let snapshot = Scene.snapshot(now: Self.now, next: ("Wake up", due, nil))
        let output = Self.render(snapshot, on: Self.small)
        #expect(Self.rows(output) == ["     06:59      ", small])
        #expect(output.nextChange == Scene.monday(7, 0))
        let tallOutput = Self.render(snapshot, on: Self.tall)
        #expect(Self.rows(tallOutput) == ["       06:59        ", "  Mon 23 Nov 2026   ", Self.blank20, tall])
        #expect(tallOutput.nextChange == Scene.monday(7, 0), "an idle clock changes once a minute, long title or not")
    }

    @Test func theIdleClockWithoutAlarmsSaysSo() {
        let snapshot = Scene.snapshot(now: Self.now)
        let small = Self.render(snapshot, on: Self.small)
        #expect(Self.rows(small) == ["     06:59      ", "   No alarms    "])
        #expect(small.nextChange == Scene.monday(7, 0))
        #expect(Self.rows(Self.render(snapshot, on: Self.tall)) == [
            "       06:59        ", "  Mon 23 Nov 2026   ", Self.blank20, "     No alarms      ",
        ])
    }

    @Test func aStoreThatCannotBeReadSaysSoOnTheIdleClock() {
        var snapshot = Scene.snapshot(now: Self.now)
        let failure = StoreError(operation: "read", path: "/var/lib/alarmd/alarms.store", errno: EIO)
        snapshot.storage = StorageHealth(readFault: StorageFault(StoreUnreadable(failures: [failure]), since: Self.now))
        #expect(Self.rows(Self.render(snapshot, on: Self.small)) == ["     06:59      ", "Disk unreadable "])
        #expect(Self.rows(Self.render(snapshot, on: Self.tall)) == [
            "       06:59        ", "  Mon 23 Nov 2026   ", "Disk unreadable     ", "     No alarms      ",
        ])
    }

    @Test func anUntrustedClockShowsDashesSaysItIsNotSetAndNeverChanges() {
        let snapshot = Scene.snapshot(now: Self.now, trusted: false, next: ("Wake up", Scene.monday(7, 0), nil))
        for showsNextAlarm in [false, true] {
            let small = Self.render(snapshot, on: Self.small, showsNextAlarm: showsNextAlarm)
            #expect(Self.rows(small) == ["     --:--      ", " Clock not set  "])
            let tall = Self.render(snapshot, on: Self.tall, showsNextAlarm: showsNextAlarm)
            #expect(Self.rows(tall) == ["       --:--        ", "   Clock not set    ", Self.blank20, Self.blank20])
        }
        #expect(Self.render(snapshot, on: Self.small).nextChange == nil)
        #expect(Self.render(snapshot, on: Self.tall).nextChange == nil)
    }

    @Test func theClockChangesAtTheNextLocalMinute() {
        for (now, next) in [
            (Scene.monday(6, 59, 30), Scene.monday(7, 0)), (Scene.monday(6, 59, 59.9), Scene.monday(7, 0)),
            (Scene.monday(7, 0), Scene.monday(7, 1)), (Scene.monday(23, 59, 1), Scene.monday(24, 0)),
        ] {
            let output = Self.render(Scene.snapshot(now: now), on: Self.small)
            #expect(Self.close(output.nextChange, next), "at \(now)")
        }
    }

    @Test func twelveHourTimesFitBothLayouts() {
        let renderer = ScreenRenderer(size: .sixteenByTwo, clockFormat: .twelveHour)
        let snapshot = Scene.snapshot(now: Scene.monday(13, 5), next: ("Wake up", Scene.monday(7, 0).addingTimeInterval(86_400), nil))
        #expect(Self.rows(Self.render(snapshot, on: renderer)) == ["     1:05pm     ", "①Tomorrow 7:00am"])
    }

    // MARK: - The next alarm's details

    @Test func anIdlePressShowsTheNextAlarmsDetails() {
        let weekdays: [Locale.Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday]
        let snapshot = Scene.snapshot(now: Self.now, next: ("Wake up", Scene.monday(7, 0), weekdays))
        let small = Self.render(snapshot, on: Self.small, showsNextAlarm: true)
        #expect(Self.rows(small) == ["①Today 07:00    ", "Wake up         "])
        #expect(small.nextChange == Scene.monday(7, 0))
        #expect(Self.rows(Self.render(snapshot, on: Self.tall, showsNextAlarm: true)) == [
            "①Today 07:00        ", "Wake up             ", "Mo Tu We Th Fr      ", "     Next alarm     ",
        ])
        let once = Scene.snapshot(now: Self.now, next: ("Wake up", Scene.monday(7, 0), nil))
        #expect(Self.rows(Self.render(once, on: Self.tall, showsNextAlarm: true))[2] == "Once                ")
    }

    @Test func theNextAlarmsDetailsWithoutAlarmsShowTheTime() {
        let small = Self.render(Scene.snapshot(now: Self.now), on: Self.small, showsNextAlarm: true)
        #expect(Self.rows(small) == ["     06:59      ", " No alarms set  "])
    }

    // MARK: - Alerts

    static let ringing = Scene.record(Scene.alerting(at: 7, 0, since: Scene.monday(7, 0)))

    @Test func anAlertShowsTitleTimeAndBothButtonsLabels() {
        let snapshot = Scene.snapshot(now: Scene.monday(7, 0, 5), alerting: [Self.ringing])
        let small = Self.render(snapshot, on: Self.small)
        #expect(Self.rows(small) == ["①Wake up   07:00", "Stop     ②Snooze"])
        #expect(small.nextChange == nil)
        let tall = Self.render(snapshot, on: Self.tall)
        #expect(Self.rows(tall) == ["①Wake up            ", "       07:00        ", Self.blank20, "Stop         ②Snooze"])
        #expect(tall.nextChange == nil)
    }

    @Test func anAlertWithoutASecondaryButtonLabelsOnlyStop() {
        let record = Scene.record(
            Scene.alerting(at: 7, 0, since: Scene.monday(7, 0)), presentation: Scene.presentation(secondary: nil, behavior: nil))
        let output = Self.render(Scene.snapshot(now: Scene.monday(7, 0), alerting: [record]), on: Self.small)
        #expect(Self.rows(output) == ["①Wake up   07:00", "Stop            "])
    }

    @Test func moreAlertsAreCountedOnTheTallDisplay() {
        let other = Scene.record(Scene.alerting(at: 6, 58, since: Scene.monday(6, 58)), title: "Other", sequence: 2)
        let output = Self.render(Scene.snapshot(now: Scene.monday(7, 0), alerting: [Self.ringing, other]), on: Self.tall)
        #expect(Self.rows(output)[2] == "   +1 more alarm    ")
    }

    @Test func aSoundFaultScrollsWithTheTitleOnTheSmallDisplay() {
        let snapshot = Scene.snapshot(now: Scene.monday(7, 0), alerting: [Self.ringing])
        let start = Self.render(snapshot, on: Self.small, fault: "No sound: hw:0")
        #expect(Self.rows(start) == ["①Wake up - 07:00", "Stop     ②Snooze"])
        #expect(Self.close(start.nextChange, Scene.monday(7, 0, Marquee.hold)))
        // "Wake up - No sound: hw:0" in 9 columns: 15 steps; the end shows from 7.1 s to 8.6 s.
        let later = Scene.snapshot(now: Scene.monday(7, 0, 8), alerting: [Self.ringing])
        let end = Self.render(later, on: Self.small, fault: "No sound: hw:0", since: Scene.monday(7, 0))
        #expect(Self.rows(end) == ["①und: hw:0 07:00", "Stop     ②Snooze"])
    }

    @Test func aSoundFaultHasItsOwnRowOnTheTallDisplay() {
        let snapshot = Scene.snapshot(now: Scene.monday(7, 0), alerting: [Self.ringing])
        let output = Self.render(snapshot, on: Self.tall, fault: "No sound: hw:0")
        #expect(Self.rows(output) == [
            "①Wake up            ", "       07:00        ", "No sound: hw:0      ", "Stop         ②Snooze",
        ])
        #expect(output.nextChange == nil)
    }

    @Test func titlesAreShownInTheDisplaysROMCharacters() {
        let record = Scene.record(Scene.alerting(at: 7, 0, since: Scene.monday(7, 0)), title: "Café über")
        let output = Self.render(Scene.snapshot(now: Scene.monday(7, 0), alerting: [record]), on: Self.small)
        #expect(Self.rows(output)[0] == "①Cafe über 07:00")
        let emoji = Scene.record(Scene.alerting(at: 7, 0, since: Scene.monday(7, 0)), title: "⏰ Up")
        #expect(Self.rows(Self.render(Scene.snapshot(now: Scene.monday(7, 0), alerting: [emoji]), on: Self.small))[0]
            == "①█ Up      07:00")
    }

    @Test func aLongTitleScrollsAndSaysWhenItsNextStepIs() {
        let record = Scene.record(Scene.alerting(at: 7, 0, since: Scene.monday(7, 0)), title: "Good morning, sunshine")
        let snapshot = Scene.snapshot(now: Scene.monday(7, 0, 1.6), alerting: [record])
        let small = Self.render(snapshot, on: Self.small, since: Scene.monday(7, 0))
        #expect(Self.rows(small)[0] == "①ood morni 07:00")
        #expect(abs((Self.seconds(small, after: snapshot.now) ?? 0) - 0.3) < 1e-6)
        let tall = Self.render(snapshot, on: Self.tall, since: Scene.monday(7, 0))
        #expect(Self.rows(tall)[0] == "①ood morning, sunshi")
        #expect(abs((Self.seconds(tall, after: snapshot.now) ?? 0) - 0.3) < 1e-6)
    }

    @Test func eachAnnouncedChangeShowsANewFrameAtALaterInstant() {
        let record = Scene.record(Scene.alerting(at: 7, 0, since: Scene.monday(7, 0)), title: "Good morning, sunshine")
        let since = Scene.monday(7, 0)
        var now = since
        var frame = Self.render(Scene.snapshot(now: now, alerting: [record]), on: Self.small).frame
        var idleWakes: [Double] = []
        for _ in 0..<30 {
            guard let next = Self.render(Scene.snapshot(now: now, alerting: [record]), on: Self.small, since: since).nextChange
            else { break }
            let output = Self.render(Scene.snapshot(now: next, alerting: [record]), on: Self.small, since: since)
            #expect(next > now)
            if output.frame == frame { idleWakes.append(next.timeIntervalSince(since)) }
            (now, frame) = (next, output.frame)
        }
        // 22 characters in 9 columns: a cycle of 1.5 + 12 x 0.4 + 1.5 = 7.8 s.
        #expect(idleWakes.isEmpty)
    }

    // MARK: - Countdowns

    static let remainingTexts: [(remaining: Double, text: String, next: Double)] = [
        (299.6, "05:00", 0.6), (59.5, "01:00", 0.5), (0.2, "00:01", 0.2), (3599.5, "1:00:00", 0.5), (3722.5, "1:02:03", 0.5),
    ]

    @Test(arguments: remainingTexts)
    func aCountdownShowsTitleRemainingTimeAndPauseLabel(_ remaining: Double, _ text: String, _ next: Double) {
        let now = Scene.monday(7, 0)
        let record = Scene.record(Scene.countingDown(remaining: remaining, now: now), title: "Tea", schedule: nil)
        let snapshot = Scene.snapshot(now: now, countdowns: [record])
        let small = Self.render(snapshot, on: Self.small)
        let gap = String(repeating: " ", count: 16 - text.count - 6)
        #expect(Self.rows(small) == ["Tea             ", text + gap + "③Pause"])
        #expect(abs((Self.seconds(small, after: now) ?? 0) - next) < 1e-6, "the next whole second of \(remaining) s")
        let tall = Self.render(snapshot, on: Self.tall)
        let left = (20 - text.count) / 2
        let centred = String(repeating: " ", count: left) + text + String(repeating: " ", count: 20 - left - text.count)
        #expect(Self.rows(tall) == ["Tea                 ", centred, Self.blank20, "              ③Pause"])
    }

    @Test func aCountdownTicksOncePerShownSecond() {
        // Stepping to each announced change shows a new second every time, never the same twice.
        let start = Scene.monday(7, 0, 0.25)
        let record = Scene.record(Scene.countingDown(remaining: 10.3, now: start), title: "Tea", schedule: nil)
        var now = start
        var shown: [String] = []
        while let next = Self.render(Scene.snapshot(now: now, countdowns: [record]), on: Self.small).nextChange, shown.count < 12 {
            #expect(next > now)
            now = next
            shown.append(String(Self.rows(Self.render(Scene.snapshot(now: now, countdowns: [record]), on: Self.small))[1].prefix(5)))
        }
        #expect(shown == ["00:10", "00:09", "00:08", "00:07", "00:06", "00:05", "00:04", "00:03", "00:02", "00:01", "00:00"])
    }

    @Test func aPausedCountdownShowsTitleRemainingTimeAndResumeLabel() {
        let record = Scene.record(
            Scene.paused(remaining: 239.5), presentation: Scene.presentation("Tea", pausedTitle: "Tea (paused)"), schedule: nil)
        let snapshot = Scene.snapshot(now: Scene.monday(7, 0), countdowns: [record])
        let small = Self.render(snapshot, on: Self.small)
        #expect(Self.rows(small) == ["Tea (paused)    ", "③04:00   ④Resume"])
        #expect(small.nextChange == nil)
        #expect(Self.rows(Self.render(snapshot, on: Self.tall)) == [
            "Tea (paused)        ", "       ③04:00       ", "       Paused       ", "             ④Resume",
        ])
    }

    @Test func aLongCountdownTitleScrollsAndTheEarlierChangeWins() {
        let now = Scene.monday(7, 0, 1.6)
        let record = Scene.record(Scene.countingDown(remaining: 299.5, now: now), title: "Boil the eggs for breakfast", schedule: nil)
        let output = Self.render(Scene.snapshot(now: now, countdowns: [record]), on: Self.small, since: Scene.monday(7, 0))
        #expect(Self.rows(output) == ["oil the eggs for", "05:00     ③Pause"])
        #expect(abs((Self.seconds(output, after: now) ?? 0) - 0.3) < 1e-6)
    }

    // MARK: - Missed alarms

    @Test func oneMissedAlarmShowsItsTimeAndTitle() {
        let snapshot = Scene.snapshot(now: Scene.monday(7, 45), missed: [Scene.missed("Wake up", due: Scene.monday(6, 30))])
        let small = Self.render(snapshot, on: Self.small)
        #expect(Self.rows(small) == ["Missed 06:30    ", "Wake up         "])
        #expect(small.nextChange == Scene.monday(7, 46))
        #expect(Self.rows(Self.render(snapshot, on: Self.tall)) == [
            "       Missed       ", "       06:30        ", "Wake up             ", "   Press a button   ",
        ])
    }

    @Test func severalMissedAlarmsAreCountedWithTheLatestShown() {
        let missed = [
            Scene.missed("Bins out", due: Scene.monday(7, 0).addingTimeInterval(-86_400), occurrences: 3),
            Scene.missed("Wake up", due: Scene.monday(6, 30)),
        ]
        let snapshot = Scene.snapshot(now: Scene.monday(7, 45), missed: missed)
        #expect(Self.rows(Self.render(snapshot, on: Self.small)) == ["Missed 4 alarms ", "Wake up         "])
        #expect(Self.rows(Self.render(snapshot, on: Self.tall)) == [
            "  Missed 4 alarms   ", "       06:30        ", "Wake up             ", "   Press a button   ",
        ])
    }

    @Test func aMissedAlarmFromAnotherDayKeepsItsTimeOnTheSmallDisplay() {
        for (due, row) in [
            (Scene.monday(0, 0).addingTimeInterval(-3600), "Missed Sun 23:00"),
            (Scene.at("2026-11-20T07:00:00+01:00"), "Missed Fri 07:00"),
            (Scene.at("2026-11-13T07:00:00+01:00"), "Missed 13 Nov   "),
        ] {
            let snapshot = Scene.snapshot(now: Scene.monday(7, 45), missed: [Scene.missed("Wake up", due: due)])
            #expect(Self.rows(Self.render(snapshot, on: Self.small))[0] == row)
        }
    }

    @Test func anOldMissedAlarmOnATwelveHourClockKeepsItsDate() {
        let renderer = ScreenRenderer(size: .sixteenByTwo, clockFormat: .twelveHour)
        let snapshot = Scene.snapshot(
            now: Scene.monday(7, 45), missed: [Scene.missed("Wake up", due: Scene.at("2026-11-13T07:00:00+01:00"))])
        let row = Self.rows(Self.render(snapshot, on: renderer))[0]
        #expect(row.hasPrefix("Missed 13 Nov"))
    }

    // MARK: - Labels

    /// Every pair of label lengths: STOP's label on the left, SNOOZE's on the right, at least one
    /// space between them, each cut only when both cannot fit.
    @Test(arguments: [DisplaySize.sixteenByTwo, .twentyByFour])
    func labelsNeverOverlapAndAreCutOnlyToFit(_ size: DisplaySize) {
        let renderer = ScreenRenderer(size: size)
        for stop in 1...24 {
            for secondary in 0...24 {
                let presentation = AlarmPresentation(alert: .init(
                    title: "Up",
                    stopButton: AlarmButton(text: String(repeating: "L", count: stop), textColor: .white, systemImageName: "x"),
                    secondaryButton: secondary == 0
                        ? nil : AlarmButton(text: String(repeating: "R", count: secondary), textColor: .white, systemImageName: "x"),
                    secondaryButtonBehavior: .countdown))
                let record = Scene.record(Scene.alerting(at: 7, 0, since: Scene.monday(7, 0)), presentation: presentation)
                let row = Self.rows(Self.render(Scene.snapshot(now: Scene.monday(7, 0), alerting: [record]), on: renderer)).last ?? ""
                let left = row.prefix { $0 == "L" }.count
                let right = row.reversed().prefix { $0 == "R" }.count
                let gap = row.dropFirst(left).dropLast(right)
                let context: Comment = "\(stop) + \(secondary) on \(size.columns): \"\(row)\""
                #expect(left >= 1 && left <= stop, context)
                #expect(secondary == 0 ? right == 0 : right >= 1 && right <= secondary, context)
                #expect(!gap.isEmpty && gap.allSatisfy { $0 == " " }, context)
                if stop + secondary + 1 <= size.columns {
                    #expect(left == stop && right == secondary, context)
                }
            }
        }
    }

    @Test func aLongPauseLabelIsCutBesideTheRemainingTime() {
        let now = Scene.monday(7, 0)
        let label = AlarmButton(text: "Pause the timer please", textColor: .white, systemImageName: "pause.fill")
        let record = Scene.record(
            Scene.countingDown(remaining: 3722.5, now: now), presentation: Scene.presentation("Tea", pauseButton: label),
            schedule: nil)
        let output = Self.render(Scene.snapshot(now: now, countdowns: [record]), on: Self.small)
        #expect(Self.rows(output)[1] == "1:02:03 ③Pause t")
    }
}
