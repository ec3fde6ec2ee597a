import AlarmHardware
import LinuxSupport

/// An ``IndicatorPattern`` as the levels of a plain on/off LED: one level held, or a cycle of
/// timed steps. Pure; ``IndicatorTimeline`` places it in time.
///
/// - `steady` and `off` hold a level (black is off: a single-colour LED lights for any other colour).
/// - `blink(on:off:)` alternates as given.
/// - `flashes(count:pause:)` gives `count` flashes of ``flashOn``, ``flashGap`` apart, then
///   stays dark for `pause`.
/// - `breathe(period:)` is a slow blink, half the period on and half off. A plain GPIO line cannot
///   dim; software PWM would mean a few hundred `set_value` calls a second, each a system call
///   waking the thread, with visible flicker whenever the Pi is busy. Not worth it for a glow.
enum IndicatorSteps: Hashable, Sendable {
    case steady(Bool)
    case cycle([Step])

    struct Step: Hashable, Sendable {
        var on: Bool
        var duration: Duration
    }

    /// How long each of `flashes`' flashes lasts, and the dark gap between two of them.
    static let flashOn = Duration.milliseconds(150)
    static let flashGap = Duration.milliseconds(150)

    init(_ pattern: IndicatorPattern) {
        switch pattern {
        case .off:
            self = .steady(false)
        case .steady(let color):
            self = .steady(color.lights)
        case .blink(let color, let on, let off):
            self = Self.alternating(lights: color.lights, on: on, off: off)
        case .breathe(let color, let period):
            self = Self.alternating(lights: color.lights, on: period / 2, off: period / 2)
        case .flashes(let color, let count, let pause):
            guard color.lights, count > 0 else {
                self = .steady(false)
                return
            }
            var steps: [Step] = []
            for index in 0..<count {
                steps.append(Step(on: true, duration: Self.flashOn))
                let gap = index == count - 1 ? max(pause, Self.flashGap) : Self.flashGap
                steps.append(Step(on: false, duration: gap))
            }
            self = .cycle(steps)
        }
    }

    private static func alternating(lights: Bool, on: Duration, off: Duration) -> IndicatorSteps {
        guard lights, on > .zero else { return .steady(false) }
        guard off > .zero else { return .steady(true) }
        return .cycle([Step(on: true, duration: on), Step(on: false, duration: off)])
    }
}

extension IndicatorColor {
    /// Whether a single-colour LED lights for this colour: for any but black.
    var lights: Bool { red > 0 || green > 0 || blue > 0 }
}

/// Steps started at a moment: the level at any time, and when it next changes. Every boundary is
/// computed from the start, so late wake-ups never shift the pattern.
struct IndicatorTimeline: Hashable, Sendable {
    let steps: IndicatorSteps
    /// `CLOCK_MONOTONIC` when the pattern began.
    let start: Duration

    /// The level at `time` (the first step's before `start`).
    func level(at time: Duration) -> Bool {
        switch steps {
        case .steady(let on):
            return on
        case .cycle(let cycle):
            return cycle[position(at: time).index].on
        }
    }

    /// When the level next changes after `time`; `nil` for a steady level.
    func nextChange(after time: Duration) -> Duration? {
        guard case .cycle(let cycle) = steps else { return nil }
        let (index, stepEnd) = position(at: time)
        var boundary = stepEnd
        var next = (index + 1) % cycle.count
        // Equal neighbours (none today) would be a boundary with no change: skip them.
        while cycle[next].on == cycle[index].on, next != index {
            boundary += cycle[next].duration
            next = (next + 1) % cycle.count
        }
        return boundary
    }

    /// The step under way at `time` and when it ends.
    private func position(at time: Duration) -> (index: Int, end: Duration) {
        guard case .cycle(let cycle) = steps else { return (0, start) }
        let period = cycle.reduce(Int64(0)) { $0 + $1.duration.nanosecondsClamped }
        let elapsed = max((time - start).nanosecondsClamped, 0)
        let cycleStart = elapsed - elapsed % period
        var end = cycleStart
        for (index, step) in cycle.enumerated() {
            end += step.duration.nanosecondsClamped
            if elapsed < end { return (index, start + .nanoseconds(end)) }
        }
        return (0, start + .nanoseconds(cycleStart + period))  // not reached: elapsed < cycleStart + period
    }
}
