/// One screen the LCD showed: the rows, and the instant the bytes that made them ended.
public struct LCDScreen: Sendable, Equatable {
    public var at: RealtimeInstant
    public var text: [String]

    public init(at: RealtimeInstant, text: [String]) {
        self.at = at
        self.text = text
    }
}

/// What `lcd` prints.
public struct LCDReport: Sendable, Equatable {
    /// The instant the state is given for (`--at`, else the last byte's).
    public var at: RealtimeInstant?
    public var text: [String]
    public var backlight: Bool?
    public var displayOn: Bool
    /// Characters written to display RAM up to `at`.
    public var changes: Int
    /// The screens up to `at` (the last ``LCDTimeline/maximumScreens`` of them).
    public var screens: [LCDScreen]
    /// Screens left out at the front because of that limit.
    public var screensDropped: Int
    /// Bytes to the backpack up to `at`.
    public var bytes: Int
    public var initialised: Bool
    public var lostEvents: Int
    /// realtime − trace clock, nanoseconds.
    public var clockOffsetNanoseconds: Int64
    public var traceClock: String

    public var json: JSONObject {
        var object = JSONObject()
        object.set("at", .instant(at))
        object.set("text", .array(text.map(JSONValue.string)))
        object.set("backlight", backlight.map(JSONValue.bool) ?? .null)
        object.set("display_on", .bool(displayOn))
        object.set("changes", .integer(changes))
        object.set("screens", .array(screens.map { screen in
            var entry = JSONObject()
            entry.set("at", .instant(screen.at))
            entry.set("text", .array(screen.text.map(JSONValue.string)))
            return .object(entry)
        }))
        object.set("screens_dropped", .integer(screensDropped))
        object.set("bytes", .integer(bytes))
        object.set("initialised", .bool(initialised))
        object.set("lost_events", .integer(lostEvents))
        object.set("clock_offset", .seconds(nanoseconds: clockOffsetNanoseconds))
        object.set("trace_clock", .string(traceClock))
        return object
    }
}

/// Replays a trace's bytes to one backpack through an ``HD44780Decoder``.
public struct LCDTimeline: Sendable {
    public static let maximumScreens = 200

    public var address: Int
    /// Only this adapter's events (`i2c-N`), or any.
    public var adapter: Int?
    public var rows: Int
    public var columns: Int
    public var pins: BackpackPins
    /// realtime − trace clock, nanoseconds.
    public var clockOffsetNanoseconds: Int64
    public var traceClock: String
    /// A screen is recorded once no byte followed for this long (nanoseconds), so that a redraw
    /// sent character by character counts once, with the instant it was complete. 0 records
    /// every intermediate state.
    public var settleNanoseconds: Int64
    public var ascii: Bool

    public init(
        address: Int = 0x27, adapter: Int? = nil, rows: Int = 2, columns: Int = 16, pins: BackpackPins = .common,
        clockOffsetNanoseconds: Int64, traceClock: String = "given", settleNanoseconds: Int64 = 10_000_000,
        ascii: Bool = false
    ) {
        self.address = address
        self.adapter = adapter
        self.rows = rows
        self.columns = columns
        self.pins = pins
        self.clockOffsetNanoseconds = clockOffsetNanoseconds
        self.traceClock = traceClock
        self.settleNanoseconds = settleNanoseconds
        self.ascii = ascii
    }

    /// The state at `at` (default: after the last byte) and the screens up to then.
    public func report(_ trace: SMBusTrace, at: RealtimeInstant? = nil) -> LCDReport {
        let events = trace.writes.filter {
            $0.address == address && $0.protocolName == "BYTE" && (adapter == nil || $0.adapter == adapter)
        }
        var decoder = HD44780Decoder(rows: rows, columns: columns, pins: pins)
        var screens: [LCDScreen] = []
        var dropped = 0
        var lastText: [String]?
        var lastInstant: RealtimeInstant?
        for (index, event) in events.enumerated() {
            let instant = RealtimeInstant(nanoseconds: event.traceNanoseconds + clockOffsetNanoseconds)
            if let at, instant > at { break }
            decoder.receive(event.command)
            lastInstant = instant
            // Settled when the next byte comes late enough, comes after `at`, or there is none.
            var settled = true
            if index + 1 < events.count {
                let next = events[index + 1].traceNanoseconds + clockOffsetNanoseconds
                settled = next - instant.nanoseconds >= settleNanoseconds || next > (at?.nanoseconds ?? .max)
            }
            guard settled else { continue }
            let text = decoder.screen.map { LCDText.render($0, ascii: ascii) }
            if text != lastText {
                screens.append(LCDScreen(at: instant, text: text))
                lastText = text
                if screens.count > Self.maximumScreens {
                    screens.removeFirst()
                    dropped += 1
                }
            }
        }
        return LCDReport(
            at: at ?? lastInstant,
            text: decoder.screen.map { LCDText.render($0, ascii: ascii) },
            backlight: decoder.backlight,
            displayOn: decoder.displayOn,
            changes: decoder.displayWrites,
            screens: screens,
            screensDropped: dropped,
            bytes: decoder.bytes,
            initialised: decoder.initialised,
            lostEvents: trace.lostEvents,
            clockOffsetNanoseconds: clockOffsetNanoseconds,
            traceClock: traceClock)
    }
}
