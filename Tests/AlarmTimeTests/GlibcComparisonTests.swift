import AlarmModel
import AlarmTime
import FoundationEssentials
import Glibc
import Testing

/// Everything that compares with glibc's localtime_r. TZ is process-global, hence `.serialized`
/// (which nested suites and extensions inherit) and the restore in ``LibcZone/with(tz:_:)``.
@Suite(.serialized)
struct GlibcComparison {
    static let zones = [
        "Europe/Berlin", "Europe/Dublin", "Europe/London", "America/New_York", "America/St_Johns",
        "America/Sao_Paulo", "Pacific/Auckland", "Pacific/Chatham", "Pacific/Apia", "Australia/Lord_Howe",
        "Australia/Sydney", "Asia/Kolkata", "Asia/Tehran", "Africa/Casablanca", "Antarctica/Troll", "UTC",
    ]

    static func start(ofYear year: Int) -> Int {
        CivilDate(year: year, month: 1, day: 1)!.daysSinceEpoch * 86_400
    }

    /// Collects up to 10 disagreements between our reading and glibc's for the current TZ.
    struct Checker {
        let rules: TimeZoneRules
        var mismatches: [String] = []
        var checked = 0

        mutating func check(_ second: Int, direct: Bool = false) {
            checked += 1
            let ours = rules.reading(second, direct: direct)
            let theirs = LibcZone.reading(second)
            if ours != theirs, mismatches.count < 10 {
                mismatches.append("\(ISO8601.format(Support.date(second), in: .utc)): glibc \(theirs), ours \(ours)")
            }
        }

        /// Every minute within ±2 h of `transition`, the second before it, and glibc seeing a change there.
        mutating func checkNeighbourhood(of transition: Int) {
            if LibcZone.offset(transition - 1) == LibcZone.offset(transition), mismatches.count < 10 {
                mismatches.append("glibc sees no change at our transition \(transition)")
            }
            check(transition - 1, direct: true)
            check(transition, direct: true)
            for second in stride(from: transition - 7_200, through: transition + 7_200, by: 60) { check(second) }
        }
    }

    @Test("offset and local time agree with glibc, 1811-2400", arguments: zones)
    func agreesWithGlibc(zone: String) throws {
        let rules = try Support.zone(zone)
        var checker = Checker(rules: rules)
        LibcZone.with(tz: ":" + zone) {
            // Before the first transition (local mean time) through 1970, coarsely, and each earlier change.
            for second in stride(from: -5_000_000_000, to: 0, by: 5 * 86_400 + 3_607) { checker.check(second) }
            for transition in rules.transitions(from: Self.start(ofYear: 1800), to: 0) {
                for second in [transition - 3_600, transition - 1, transition, transition + 3_600] { checker.check(second) }
            }
            // 1970-2040 (explicit transitions) on a 97-minute grid that drifts through every time of day;
            // 2040-2100 (mostly the footer rule, slow in debug builds) on a 373-minute grid.
            for second in stride(from: 0, to: Self.start(ofYear: 2040), by: 97 * 60) { checker.check(second) }
            for second in stride(from: Self.start(ofYear: 2040), to: Self.start(ofYear: 2100), by: 373 * 60) {
                checker.check(second)
            }
            for transition in rules.transitions(from: 0, to: Self.start(ofYear: 2100)) {
                checker.checkNeighbourhood(of: transition)
            }
            // Up to 2400 only the footer rule applies: a sparse grid and every ninth pair of changes.
            for second in stride(from: Self.start(ofYear: 2100), to: Self.start(ofYear: 2400), by: 9 * 86_400 + 3_331) {
                checker.check(second)
            }
            let late = rules.transitions(from: Self.start(ofYear: 2100), to: Self.start(ofYear: 2400))
            for (index, transition) in late.enumerated() where index % 18 < 2 { checker.checkNeighbourhood(of: transition) }
        }
        #expect(checker.checked > 300_000)
        #expect(checker.mismatches.isEmpty, "\(zone):\n\(checker.mismatches.joined(separator: "\n"))")
    }

    static let posixStrings = [
        "<+0330>-3:30", "AEST-10AEDT,M10.1.0,M4.1.0/3", "IST-2IDT,M3.4.4/26,M10.5.0",
        "<-03>3<-02>,M3.5.0/-2,M10.5.0/-1", "CET-1CEST,M3.5.0,M10.5.0/3", "NZST-12NZDT,M9.5.0,M4.1.0/3",
        "<+1245>-12:45<+1345>,M9.5.0/2:45,M4.1.0/3:45", "IST-1GMT0,M10.5.0,M3.5.0/1",
        "EET-2EEST,M3.4.4/50,M10.4.4/50", "<-04>4<-03>,M9.1.6/24,M4.1.6/24", "XST3:15XDT2:45,J60/1:30,300/23",
    ]

    @Test("POSIX TZ strings agree with glibc, 2000-2040", arguments: posixStrings)
    func posixAgreesWithGlibc(string: String) throws {
        let rules = try TimeZoneRules(posix: string)
        var checker = Checker(rules: rules)
        LibcZone.with(tz: string) {
            for second in stride(from: Self.start(ofYear: 2000), to: Self.start(ofYear: 2040), by: 367 * 60) {
                checker.check(second)
            }
            for transition in rules.transitions(from: Self.start(ofYear: 2000), to: Self.start(ofYear: 2040)) {
                checker.checkNeighbourhood(of: transition)
            }
        }
        #expect(checker.mismatches.isEmpty, "\(string):\n\(checker.mismatches.joined(separator: "\n"))")
    }

    static let resolutionZones = [
        "Europe/Berlin", "Europe/Dublin", "America/New_York", "Pacific/Auckland", "Australia/Lord_Howe",
        "Pacific/Chatham", "America/St_Johns", "America/Sao_Paulo", "Pacific/Apia",
    ]

    /// For every local minute within ±3 h of each change in 2020-2030 (plus the Apia and Kwajalein day
    /// skips), `resolve` matches a brute-force inversion of glibc's conversion.
    @Test("resolve agrees with brute force over glibc", arguments: resolutionZones + ["Pacific/Kwajalein"])
    func resolveAgreesWithGlibc(zone: String) throws {
        let rules = try Support.zone(zone)
        var failures: [String] = []
        var transitions = rules.transitions(from: Self.start(ofYear: 2020), to: Self.start(ofYear: 2031))
        transitions += rules.transitions(from: Self.start(ofYear: 1993), to: Self.start(ofYear: 1994))
        transitions += rules.transitions(from: Self.start(ofYear: 2011), to: Self.start(ofYear: 2012))
        LibcZone.with(tz: ":" + zone) {
            for transition in transitions {
                let before = LibcZone.offset(transition - 1)
                let after = LibcZone.offset(transition)
                let firstWall = (transition + min(before, after) - 10_800) / 60 * 60
                let lastWall = transition + max(before, after) + 10_800
                for wall in stride(from: firstWall, through: lastWall, by: 60) {
                    let solutions = Set([before, after].map { wall - $0 }.filter { LibcZone.offset($0) == wall - $0 }).sorted()
                    let local = LocalDateTime(date: CivilDate(daysSinceEpoch: wall / 86_400),
                                              time: CivilTime(secondsSinceMidnight: wall % 86_400))
                    let expected: LocalTimeResolution?
                    switch solutions.count {
                    case 1: expected = .unique(Support.date(solutions[0]))
                    case 2: expected = .repeated(earlier: Support.date(solutions[0]), later: Support.date(solutions[1]))
                    default:
                        // A gap: the reading lies between the wall clock just before and at the change.
                        let inGap = transition + before <= wall && wall < transition + after
                        expected = inGap ? .skipped(shifted: Support.date(wall - before), transition: Support.date(transition)) : nil
                    }
                    let actual = rules.resolve(local)
                    if actual != expected, failures.count < 10 {
                        failures.append("\(local): expected \(String(describing: expected)), got \(actual)")
                    }
                }
            }
        }
        #expect(transitions.count > 0 || zone == "Pacific/Apia")
        #expect(failures.isEmpty, "\(zone):\n\(failures.joined(separator: "\n"))")
    }
}
