@testable import AlarmGPIO
import AlarmHardware
import Testing

/// Patterns as the levels of a plain LED, and their timing from a start: pure, synchronous.
struct IndicatorStepsTests {
    typealias Step = IndicatorSteps.Step

    @Test func steadyLevels() {
        #expect(IndicatorSteps(.off) == .steady(false))
        #expect(IndicatorSteps(.steady(.white)) == .steady(true))
        #expect(IndicatorSteps(.steady(IndicatorColor(red: 0, green: 0.2, blue: 0))) == .steady(true))
        #expect(IndicatorSteps(.steady(IndicatorColor(red: 0, green: 0, blue: 0))) == .steady(false))
    }

    @Test func blinkAndItsDegenerateCases() {
        #expect(
            IndicatorSteps(.blink(.white, on: .milliseconds(200), off: .milliseconds(800)))
                == .cycle([Step(on: true, duration: .milliseconds(200)), Step(on: false, duration: .milliseconds(800))]))
        #expect(IndicatorSteps(.blink(.white, on: .zero, off: .seconds(1))) == .steady(false))
        #expect(IndicatorSteps(.blink(.white, on: .seconds(1), off: .zero)) == .steady(true))
    }

    @Test func flashesAreOneHundredFiftyMillisecondsApartThenThePause() {
        let on = Step(on: true, duration: .milliseconds(150)), gap = Step(on: false, duration: .milliseconds(150))
        #expect(
            IndicatorSteps(.flashes(.white, count: 2, pause: .seconds(2)))
                == .cycle([on, gap, on, Step(on: false, duration: .seconds(2))]))
        #expect(IndicatorSteps(.flashes(.white, count: 1, pause: .zero)) == .cycle([on, gap]))
        #expect(IndicatorSteps(.flashes(.white, count: 0, pause: .seconds(1))) == .steady(false))
    }

    @Test func breatheIsHalfOnHalfOff() {
        #expect(
            IndicatorSteps(.breathe(.white, period: .seconds(3)))
                == .cycle([Step(on: true, duration: .milliseconds(1500)), Step(on: false, duration: .milliseconds(1500))]))
    }

    @Test func timelineLevelsAndChangesCountFromTheStart() {
        let timeline = IndicatorTimeline(
            steps: IndicatorSteps(.blink(.white, on: .milliseconds(500), off: .milliseconds(250))), start: .seconds(10))
        #expect(timeline.level(at: .at(10)) == true)
        #expect(timeline.level(at: .at(10.499)) == true)
        #expect(timeline.level(at: .at(10.5)) == false)
        #expect(timeline.level(at: .at(10.75)) == true)
        #expect(timeline.level(at: .at(11.6)) == true)
        #expect(timeline.nextChange(after: .at(10)) == .at(10.5))
        #expect(timeline.nextChange(after: .at(10.5)) == .at(10.75))
        #expect(timeline.nextChange(after: .at(11.6)) == .at(12))
        #expect(timeline.nextChange(after: .at(9)) == .at(10.5))  // before the start: the first step
        let steady = IndicatorTimeline(steps: .steady(true), start: .zero)
        #expect(steady.level(at: .seconds(99)) == true)
        #expect(steady.nextChange(after: .seconds(99)) == nil)
    }
}
