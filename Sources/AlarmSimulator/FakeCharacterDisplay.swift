import AlarmHardware
import Synchronization

/// A character LCD that keeps its grid, backlight and glyphs, and can stop answering.
public final class FakeCharacterDisplay: CharacterDisplay, Sendable {
    public enum Event: Hashable, Sendable {
        case frame(DisplayFrame)
        case backlight(Bool)
        case glyph(slot: Int, Glyph)
        /// The caller had the display forget its contents: the next frame is drawn whole.
        case forgotten
    }

    private struct State {
        var frame: DisplayFrame
        var backlight = false
        var glyphs: [Int: Glyph] = [:]
        var unavailable: HardwareError?
    }

    public let size: DisplaySize
    private let state: Mutex<State>
    private let feed = EventFeed<Event>()

    public init(size: DisplaySize = .sixteenByTwo) {
        self.size = size
        state = Mutex(State(frame: DisplayFrame(size: size)))
    }

    public var frame: DisplayFrame { state.withLock { $0.frame } }
    /// The rows as text (custom glyphs as ①...⑧).
    public var lines: [String] { frame.codes.map(HD44780Text.preview) }
    public var isBacklightOn: Bool { state.withLock { $0.backlight } }
    public var glyphs: [Int: Glyph] { state.withLock { $0.glyphs } }

    public func events() -> AsyncStream<Event> { feed.subscribe() }

    /// Makes every operation fail with `error` until called with `nil` (the display does not answer).
    public func setUnavailable(_ error: HardwareError?) {
        state.withLock { $0.unavailable = error }
    }

    public func show(_ frame: DisplayFrame) async throws {
        precondition(frame.size == size, "a \(frame.size) frame on a \(size) display")
        try update { $0.frame = frame }
        feed.send(.frame(frame))
    }

    public func setBacklight(_ on: Bool) async throws {
        try update { $0.backlight = on }
        feed.send(.backlight(on))
    }

    public func define(_ glyph: Glyph, slot: Int) async throws {
        precondition((0...7).contains(slot), "an HD44780 has 8 glyph slots, not \(slot + 1)")
        try update { $0.glyphs[slot] = glyph }
        feed.send(.glyph(slot: slot, glyph))
    }

    /// Records ``Event/forgotten``: a fake keeps no shadow, every frame it shows is whole.
    public func forgetContents() async {
        feed.send(.forgotten)
    }

    private func update(_ change: (inout State) -> Void) throws {
        try state.withLock { state in
            if let unavailable = state.unavailable { throw unavailable }
            change(&state)
        }
    }
}
