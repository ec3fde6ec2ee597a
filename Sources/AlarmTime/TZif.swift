/// The content of a TZif file (RFC 8536) that matters for UTC offsets.
///
/// Version 1 files use their 32-bit block; version 2 and later use the 64-bit block and the footer
/// TZ string. Leap-second records are skipped: POSIX time ignores them, and "right/" zones are not
/// supported beyond not failing. Every count, index, length and ordering rule of RFC 8536 is checked,
/// so hostile bytes produce an error instead of a trap.
struct TZif {
    /// Transition instants, strictly ascending.
    var transitionTimes: [Int] = []
    /// The UTC offset in force from each transition on (same count as `transitionTimes`).
    var transitionOffsets: [Int] = []
    /// The offset of local time type 0, which RFC 8536 prescribes before the first transition.
    var firstTypeOffset = 0
    /// The footer rule of version 2+ files; nil when absent or empty.
    var footer: POSIXTimeZone?

    /// Header counts in file order.
    private struct Counts {
        var isUT = 0, isStandard = 0, leap = 0, time = 0, type = 0, characters = 0

        func dataLength(timeSize: Int) -> Int {
            time * timeSize + time + type * 6 + characters + leap * (timeSize + 4) + isStandard + isUT
        }
    }

    /// Parses and validates `bytes`; errors describe the first problem found.
    init(bytes: [UInt8]) throws(TimeZoneError) {
        var reader = ByteReader(bytes)
        let (version, firstCounts) = try TZif.header(&reader)
        if version == 0 {
            try parseBlock(&reader, counts: firstCounts, timeSize: 4)
            return
        }
        guard reader.skip(firstCounts.dataLength(timeSize: 4)) else {
            throw TZif.malformed("truncated version 1 data block")
        }
        let (_, counts) = try TZif.header(&reader)
        try parseBlock(&reader, counts: counts, timeSize: 8)
        footer = try TZif.footer(&reader)
    }

    static func malformed(_ reason: String) -> TimeZoneError {
        .malformedTZif(source: "<data>", reason: reason)
    }

    private static func header(_ reader: inout ByteReader) throws(TimeZoneError) -> (UInt8, Counts) {
        guard let magic = reader.bytes(4), magic.elementsEqual("TZif".utf8) else {
            throw malformed("missing \"TZif\" magic")
        }
        guard let version = reader.uint8(), reader.skip(15) else { throw malformed("truncated header") }
        guard version == 0 || (UInt8(ascii: "2")...UInt8(ascii: "4")).contains(version) else {
            throw malformed("unsupported version byte \(version)")
        }
        var values: [Int] = []
        for _ in 0..<6 {
            guard let value = reader.uint32() else { throw malformed("truncated header") }
            values.append(Int(value))
        }
        let counts = Counts(isUT: values[0], isStandard: values[1], leap: values[2],
                            time: values[3], type: values[4], characters: values[5])
        guard counts.type >= 1 else { throw malformed("no local time types") }
        guard counts.characters >= 1 else { throw malformed("no time zone designations") }
        guard counts.isUT == 0 || counts.isUT == counts.type else {
            throw malformed("UT/local indicator count \(counts.isUT) differs from type count \(counts.type)")
        }
        guard counts.isStandard == 0 || counts.isStandard == counts.type else {
            throw malformed("standard/wall indicator count \(counts.isStandard) differs from type count \(counts.type)")
        }
        return (version, counts)
    }

    private mutating func parseBlock(_ reader: inout ByteReader, counts: Counts, timeSize: Int) throws(TimeZoneError) {
        guard reader.remaining >= counts.dataLength(timeSize: timeSize) else {
            throw TZif.malformed("truncated data block: \(counts.dataLength(timeSize: timeSize)) bytes needed, \(reader.remaining) present")
        }
        // The length check above makes the reads below infallible; the guards only satisfy the types.
        var times: [Int] = []
        times.reserveCapacity(counts.time)
        for index in 0..<counts.time {
            guard let time = timeSize == 4 ? reader.int32().map(Int.init) : reader.int64().map(Int.init) else {
                throw TZif.malformed("truncated transition times")
            }
            if let previous = times.last, time <= previous {
                throw TZif.malformed("transition \(index) at \(time) is not after the previous one at \(previous)")
            }
            times.append(time)
        }
        guard let typeIndices = reader.bytes(counts.time) else { throw TZif.malformed("truncated transition types") }
        var typeOffsets: [Int] = []
        for index in 0..<counts.type {
            guard let offset = reader.int32(), let isDST = reader.uint8(), let designation = reader.uint8() else {
                throw TZif.malformed("truncated local time types")
            }
            // RFC 8536 asks for offsets strictly between -25 and +26 hours; this also keeps arithmetic small.
            guard (-89_999...93_599).contains(offset) else {
                throw TZif.malformed("local time type \(index) has UT offset \(offset) outside (-25 h, +26 h)")
            }
            guard isDST <= 1 else { throw TZif.malformed("local time type \(index) has DST flag \(isDST)") }
            guard Int(designation) < counts.characters else {
                throw TZif.malformed("local time type \(index) designation index \(designation) >= \(counts.characters)")
            }
            typeOffsets.append(Int(offset))
        }
        guard let designations = reader.bytes(counts.characters), designations.last == 0 else {
            throw TZif.malformed("time zone designations are not NUL-terminated")
        }
        guard reader.skip(counts.leap * (timeSize + 4)) else { throw TZif.malformed("truncated leap-second records") }
        for _ in 0..<(counts.isStandard + counts.isUT) {
            guard let flag = reader.uint8(), flag <= 1 else {
                throw TZif.malformed("standard/wall or UT/local indicator is not 0 or 1")
            }
        }
        var offsets: [Int] = []
        offsets.reserveCapacity(counts.time)
        for (index, typeIndex) in typeIndices.enumerated() {
            guard Int(typeIndex) < counts.type else {
                throw TZif.malformed("transition \(index) uses local time type \(typeIndex) of \(counts.type)")
            }
            offsets.append(typeOffsets[Int(typeIndex)])
        }
        transitionTimes = times
        transitionOffsets = offsets
        firstTypeOffset = typeOffsets[0]
    }

    /// Reads the `\n<TZ string>\n` footer; an empty string means "no rule".
    private static func footer(_ reader: inout ByteReader) throws(TimeZoneError) -> POSIXTimeZone? {
        guard reader.uint8() == UInt8(ascii: "\n") else { throw malformed("missing footer after version 2+ data") }
        var text: [UInt8] = []
        while true {
            guard let byte = reader.uint8() else { throw malformed("footer is not terminated by a newline") }
            if byte == UInt8(ascii: "\n") { break }
            guard byte >= 0x20, byte < 0x7F else { throw malformed("footer contains a non-printable byte \(byte)") }
            text.append(byte)
        }
        if text.isEmpty { return nil }
        let string = String(decoding: text, as: UTF8.self)
        do {
            return try POSIXTimeZone(parsing: string)
        } catch {
            throw malformed("footer: \(error)")
        }
    }
}
