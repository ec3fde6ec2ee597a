import AlarmHardware
import FoundationEssentials
import Testing

@testable import AlarmAppliance

@Suite struct PartHealthTests {
    let error = HardwareError(.deviceUnavailable, device: "/dev/i2c-1", errno: 2)
    let backoff = RetryBackoff(first: .seconds(10), limit: .seconds(40))
    let start = Date(timeIntervalSince1970: 1_000)

    @Test func failuresInARowAreRetriedLaterAndLaterAndASuccessEndsThem() {
        var health = PartHealth.working
        let newFault = health.recordFailure(error, at: start, backoff: backoff)
        #expect(newFault)  // logged
        #expect(health.retryAt == start.addingTimeInterval(10))
        let sameFault = health.recordFailure(error, at: start.addingTimeInterval(10), backoff: backoff)
        #expect(!sameFault)
        #expect(health.retryAt == start.addingTimeInterval(30))
        health.recordFailure(error, at: start.addingTimeInterval(30), backoff: backoff)
        health.recordFailure(error, at: start.addingTimeInterval(70), backoff: backoff)
        #expect(health.retryAt == start.addingTimeInterval(110))
        #expect(health.fault == error)
        let recovered = health.recordSuccess()
        #expect(recovered)  // logged
        #expect(health == .working)
        let recoveredAgain = health.recordSuccess()
        #expect(!recoveredAgain)
    }

    @Test func aFaultFoundWithoutATryShowsUntilNeededAndACancelledRetryKeepsTheFault() {
        var sound = PartHealth.working
        sound.recordFault(error)
        #expect(sound.fault == error)
        #expect(sound.retryAt == nil)
        sound.recordFailure(error, at: start, backoff: backoff)
        #expect(sound.retryAt != nil)
        sound.cancelRetry()
        #expect(sound == .failed(error, retryAt: nil, failures: 1))
    }
}

extension ApplianceTests {
    /// A display that stays missing is tried 10 s, 20 s, 40 s... apart (up to five minutes), and
    /// the minute changing on a screen nobody sees does not wake the appliance.
    @Test func aMissingDisplayIsTriedLessAndLessOftenAndTheMinuteDoesNotWakeTheAppliance() async throws {
        let rig = try await ApplianceRig(now: Scene.monday(6, 59, 55))
        rig.display.setUnavailable(HardwareError(.deviceUnavailable, device: "/dev/i2c-1", errno: 2))
        #expect(await rig.appliance.nextWake == Scene.monday(7, 0))
        await rig.advance(to: Scene.monday(7, 0))  // a new minute to draw: the display fails
        #expect(await rig.appliance.displayFault != nil)
        var expected = Scene.monday(7, 0)
        for wait in [10.0, 20, 40, 80, 160, 300, 300] {
            expected = expected.addingTimeInterval(wait)
            #expect(await rig.appliance.nextWake == expected)
            await rig.advance(to: expected)
        }
        rig.display.setUnavailable(nil)
        #expect(await rig.appliance.nextWake == expected.addingTimeInterval(300))
        await rig.advance(to: expected.addingTimeInterval(300))
        #expect(await rig.appliance.displayFault == nil)
        // Working again: the next minute wakes it.
        #expect(await rig.appliance.nextWake == Scene.monday(7, 21))
    }
}
