import AlarmModel
import AlarmTestKit
import AlarmTime
import FoundationEssentials
import Glibc
import Testing

/// Writes TZif bytes field by field, so tests can produce both valid and deliberately broken files.
struct TZifBuilder {
    var version = UInt8(ascii: "2")
    var times: [Int64] = []
    var indices: [UInt8] = []
    var types: [(offset: Int32, isDST: UInt8, designation: UInt8)] = [(0, 0, 0)]
    var designations = Array("UTC\0".utf8)
    var leapSeconds: [(Int64, Int32)] = []
    var indicators: [UInt8]? = nil
    var footer: String? = ""
    /// Replaces the six header counts (isut, isstd, leap, time, type, char) when set.
    var counts: [UInt32]? = nil

    func bytes() -> [UInt8] {
        var out: [UInt8] = []
        block(into: &out, timeSize: 4, header: version)
        if version != 0 {
            block(into: &out, timeSize: 8, header: version)
            if let footer { out += Array("\n\(footer)\n".utf8) }
        }
        return out
    }

    private func block(into out: inout [UInt8], timeSize: Int, header version: UInt8) {
        out += Array("TZif".utf8) + [version] + Array(repeating: 0, count: 15)
        let indicatorCount = UInt32(indicators?.count ?? 0)
        let values = counts ?? [indicatorCount, indicatorCount, UInt32(leapSeconds.count), UInt32(times.count),
                                UInt32(types.count), UInt32(designations.count)]
        for value in values { out += Self.bigEndian(UInt64(value), size: 4) }
        for time in times { out += Self.bigEndian(UInt64(bitPattern: time), size: timeSize) }
        out += indices
        for type in types { out += Self.bigEndian(UInt64(UInt32(bitPattern: type.offset)), size: 4) + [type.isDST, type.designation] }
        out += designations
        for (time, correction) in leapSeconds {
            out += Self.bigEndian(UInt64(bitPattern: time), size: timeSize) + Self.bigEndian(UInt64(UInt32(bitPattern: correction)), size: 4)
        }
        out += (indicators ?? []) + (indicators ?? [])
    }

    static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    /// A valid two-type zone: +01 until 1000, then +02, with `footer`.
    static func twoTypes(footer: String? = "<+02>-2") -> TZifBuilder {
        var builder = TZifBuilder()
        builder.times = [-1_000_000, 1_000]
        builder.indices = [0, 1]
        builder.types = [(3_600, 0, 0), (7_200, 1, 4)]
        builder.designations = Array("+01\0+02\0".utf8)
        builder.footer = footer
        return builder
    }
}

@Suite struct TZifParsing {
    func parse(_ builder: TZifBuilder) throws(TimeZoneError) -> TimeZoneRules {
        try TimeZoneRules(tzif: builder.bytes(), identifier: "Test/Zone")
    }

    /// The reason of the `.malformedTZif` error `builder` produces, or nil if it parses.
    func failure(_ builder: TZifBuilder) -> String? {
        do {
            _ = try parse(builder)
            return nil
        } catch {
            guard case .malformedTZif(let source, let reason) = error else { return "wrong error \(error)" }
            #expect(source == "Test/Zone")
            return reason
        }
    }

    @Test func validVersions() throws {
        for version in [UInt8(0), UInt8(ascii: "2"), UInt8(ascii: "3"), UInt8(ascii: "4")] {
            var builder = TZifBuilder.twoTypes()
            builder.version = version
            let rules = try parse(builder)
            #expect(rules.offset(at: Support.date(-2_000_000)) == 3_600, "type 0 before the first transition")
            #expect(rules.offset(at: Support.date(999)) == 3_600)
            #expect(rules.offset(at: Support.date(1_000)) == 7_200)
            #expect(rules.offset(at: Support.date(10_000_000_000)) == 7_200)
            #expect(rules.nextTransition(after: Support.date(0)) == Support.date(1_000))
            #expect(rules.nextTransition(after: Support.date(1_000)) == nil)
        }
    }

    @Test func footerTakesOverAtTheLastTransition() throws {
        var builder = TZifBuilder.twoTypes(footer: "<-03>3<-02>,M3.5.0/-2,M10.5.0/-1")
        builder.version = UInt8(ascii: "3")
        builder.types = [(3_600, 0, 0), (-10_800, 0, 4)]
        builder.designations = Array("+01\0-03\0".utf8)
        let rules = try parse(builder)
        #expect(rules.offset(at: Support.instant("2026-07-01T00:00Z")) == -7_200)
        #expect(rules.offset(at: Support.instant("2026-12-01T00:00Z")) == -10_800)
        #expect(rules.nextTransition(after: Support.instant("2026-01-01T00:00Z")) == Support.instant("2026-03-29T01:00Z"))
        // A footer with no transitions at all applies throughout (RFC 8536).
        var ruleOnly = TZifBuilder()
        ruleOnly.footer = "CET-1CEST,M3.5.0,M10.5.0/3"
        #expect(try parse(ruleOnly).offset(at: Support.instant("2026-07-01T00:00Z")) == 7_200)
    }

    @Test func leapSecondRecordsAreSkipped() throws {
        var builder = TZifBuilder.twoTypes()
        builder.leapSeconds = [(78_796_800, 1), (94_694_401, 2)]
        builder.indicators = [0, 1]
        #expect(try parse(builder).offset(at: Support.date(2_000)) == 7_200)
        let right = try TimeZoneDatabase().rules(named: "right/Europe/Berlin")
        #expect(right.offset(at: Support.instant("2026-07-01T00:00Z")) == 7_200)
    }

    @Test func malformedStructures() {
        var builder = TZifBuilder.twoTypes()
        builder.version = UInt8(ascii: "5")
        #expect(failure(builder)?.contains("version") == true)
        #expect(throws: TimeZoneError.self) { try TimeZoneRules(tzif: Array("TZjf2".utf8) + Array(repeating: 0, count: 60), identifier: "x") }
        #expect(throws: TimeZoneError.self) { try TimeZoneRules(tzif: [], identifier: "x") }

        builder = TZifBuilder.twoTypes()
        builder.indices = [0, 2]
        #expect(failure(builder)?.contains("local time type 2") == true)

        builder = TZifBuilder.twoTypes()
        builder.times = [1_000, 1_000]
        #expect(failure(builder)?.contains("not after") == true)
        builder.times = [2_000, 1_000]
        #expect(failure(builder)?.contains("not after") == true)

        builder = TZifBuilder.twoTypes()
        builder.types[1].designation = 8
        #expect(failure(builder)?.contains("designation index") == true)
        builder = TZifBuilder.twoTypes()
        builder.types[1].isDST = 2
        #expect(failure(builder)?.contains("DST flag") == true)
        builder = TZifBuilder.twoTypes()
        builder.types[1].offset = Int32.min
        #expect(failure(builder)?.contains("UT offset") == true)
        builder = TZifBuilder.twoTypes()
        builder.designations = Array("+01\0+02X".utf8)
        #expect(failure(builder)?.contains("NUL") == true)
        builder = TZifBuilder.twoTypes()
        builder.indicators = [0, 2]
        #expect(failure(builder)?.contains("indicator") == true)

        builder = TZifBuilder.twoTypes()
        builder.counts = [0, 0, 0, 2, 0, 8]
        #expect(failure(builder)?.contains("no local time types") == true)
        builder.counts = [0, 0, 0, 2, 2, 0]
        #expect(failure(builder)?.contains("no time zone designations") == true)
        builder.counts = [1, 0, 0, 2, 2, 8]
        #expect(failure(builder)?.contains("UT/local indicator count") == true)
        builder.counts = [0, 0, 0, UInt32.max, 2, 8]
        #expect(failure(builder)?.contains("truncated") == true)

        builder = TZifBuilder.twoTypes(footer: nil)
        #expect(failure(builder)?.contains("footer") == true)
        builder = TZifBuilder.twoTypes(footer: "EST5EDT,M3.2.0")
        #expect(failure(builder)?.contains("footer") == true)
        var unterminated = TZifBuilder.twoTypes().bytes()
        unterminated.removeLast()
        #expect(throws: TimeZoneError.self) { try TimeZoneRules(tzif: unterminated, identifier: "x") }
    }

    @Test func extremeTransitionTimesDoNotTrap() throws {
        var builder = TZifBuilder.twoTypes(footer: "CET-1CEST,M3.5.0,M10.5.0/3")
        builder.times = [Int64.min + 1, Int64.max]
        let rules = try parse(builder)
        for seconds in [-1e300, -1e20, -1e16, 0, 1e16, 1e20, 1e300, .infinity, -.infinity, .nan] {
            let date = Date(timeIntervalSince1970: seconds)
            _ = rules.offset(at: date)
            _ = rules.localDateTime(at: date)
            _ = rules.nextTransition(after: date)
            _ = ISO8601.format(date, in: rules)
        }
        _ = rules.resolve(Support.local("2026-03-29T02:30"))
        _ = rules.resolve(LocalDateTime(date: CivilDate(daysSinceEpoch: .max), time: .midnight))
        _ = rules.resolve(LocalDateTime(date: CivilDate(daysSinceEpoch: .min), time: .midnight))
    }

    @Test func everyPrefixOfARealFileIsRejected() throws {
        guard case .success(let bytes) = Self.read("/usr/share/zoneinfo/Europe/Berlin") else {
            Issue.record("cannot read Europe/Berlin")
            return
        }
        _ = try TimeZoneRules(tzif: bytes, identifier: "Europe/Berlin")
        var accepted: [Int] = []
        for length in 0..<bytes.count where (try? TimeZoneRules(tzif: Array(bytes[..<length]), identifier: "t")) != nil {
            accepted.append(length)
        }
        #expect(accepted.isEmpty)
    }

    /// Random byte changes must never crash; whatever parses must also evaluate without trapping.
    @Test(arguments: ["Europe/Berlin", "America/Sao_Paulo", "Australia/Lord_Howe"])
    func mutatedFilesNeverCrash(zone: String) throws {
        guard case .success(let original) = Self.read("/usr/share/zoneinfo/\(zone)") else {
            Issue.record("cannot read \(zone)")
            return
        }
        var generator = SeededRandomNumberGenerator(seed: 0x5EED_0000 &+ UInt64(original.count))
        var parsed = 0
        for round in 0..<1_500 {
            var bytes = original
            for _ in 0...(round % 4) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                bytes[index] = round % 3 == 0 ? bytes[index] ^ (1 << UInt8.random(in: 0...7, using: &generator))
                                              : UInt8.random(in: 0...255, using: &generator)
            }
            guard let rules = try? TimeZoneRules(tzif: bytes, identifier: zone) else { continue }
            parsed += 1
            for instant in [-3e9, 0, 1.7e9, 4e9, 1e12] {
                _ = rules.localDateTime(at: Date(timeIntervalSince1970: instant))
                _ = rules.nextTransition(after: Date(timeIntervalSince1970: instant))
            }
            _ = rules.resolve(Support.local("2026-03-29T02:30"))
            _ = nextOccurrence(of: CivilTime(hour: 2, minute: 30)!, weekdays: [.sunday], after: Support.date(1_774_000_000),
                               onOrAfter: nil, in: rules)
        }
        #expect(parsed > 0)
    }

    static func read(_ path: String) -> Result<[UInt8], Errno> {
        guard let file = fopen(path, "rb") else { return .failure(Errno(value: errno)) }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { break }
            bytes += buffer[..<count]
        }
        return .success(bytes)
    }

    struct Errno: Error { var value: Int32 }
}
