import Testing
@testable import VMProbeKit

/// The capture wrapper on the host, which has no sound card: errors, and ALSA's `null` device.
@Suite struct ALSACaptureTests {
    @Test func openingAMissingDeviceNamesIt() {
        do {
            _ = try ALSACapture.open(name: "hw:NoSuchCard,1,0")
            Issue.record("a capture device that does not exist opened")
        } catch {
            #expect(error.message.hasPrefix("cannot open capture device hw:NoSuchCard,1,0: "))
            #expect(error.message.contains("NoSuchCard"))
        }
    }

    @Test func theNullDeviceTakesTheLoopbackParameters() throws {
        let capture = try ALSACapture.open(name: "null")
        #expect(capture.rate == 48_000)
        #expect(capture.periodFrames == 240)
        #expect(capture.bufferFrames == 4800)
        capture.close()
        capture.close()
    }
}
