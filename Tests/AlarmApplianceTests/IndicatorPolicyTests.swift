import AlarmAppliance
import AlarmHardware
import AlarmKitCore
import Testing

@Suite struct IndicatorPolicyTests {
    static let states: [IndicatorState] = [
        .alerting(tint: .white), .countingDown(tint: .white), .paused(tint: .white), .hardwareFault, .missedAlarm, .idle,
    ]

    @Test func everyStateHasItsOwnPatternAndIdleIsDark() {
        let patterns = Self.states.map(IndicatorPolicy.pattern(for:))
        #expect(Set(patterns).count == Self.states.count)
        #expect(IndicatorPolicy.pattern(for: .idle) == .off)
    }

    @Test func alarmStatesShowTheTintAndBlackShowsAsWhite() {
        let purple = IndicatorColor(red: 0.69, green: 0.32, blue: 0.87)
        #expect(IndicatorPolicy.pattern(for: .paused(tint: .purple)) == .steady(purple))
        #expect(IndicatorPolicy.pattern(for: .countingDown(tint: .black)) == .breathe(.white, period: .seconds(4)))
    }
}
