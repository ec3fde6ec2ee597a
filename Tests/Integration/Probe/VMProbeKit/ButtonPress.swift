import Glibc

/// A button press on a gpio-sim line: `pull-down` (pressed, the line is active-low), a hold,
/// then `pull-up`.
public enum ButtonPress {
    public struct Result: Sendable {
        /// Right after the `pull-down` write returned.
        public var pressedAt: RealtimeInstant
        /// Right after the `pull-up` write returned.
        public var releasedAt: RealtimeInstant

        public var json: JSONObject {
            var object = JSONObject()
            object.set("pressed_at", .instant(pressedAt))
            object.set("released_at", .instant(releasedAt))
            object.set("held_ms", .number(RealtimeInstant.millisecondsBetween(pressedAt, releasedAt), decimals: 3))
            return object
        }
    }

    /// Presses through `pullPath` (`.../sim_gpioN/pull`) for `holdNanoseconds` (monotonic sleep).
    /// A stop requested during the hold (``StopSignal``) releases the button early rather than
    /// leaving it pressed.
    /// - Throws: ``ProbeError`` `cannot write PATH: <reason>`.
    public static func press(pullPath: String, holdNanoseconds: Int64) throws(ProbeError) -> Result {
        try FileIO.writeAttribute("pull-down", to: pullPath)
        let pressed = RealtimeInstant.now()
        SystemClock.sleep(nanoseconds: holdNanoseconds) { StopSignal.requested }
        try FileIO.writeAttribute("pull-up", to: pullPath)
        return Result(pressedAt: pressed, releasedAt: .now())
    }
}
