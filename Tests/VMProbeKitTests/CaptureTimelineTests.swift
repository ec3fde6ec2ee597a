import Testing
@testable import VMProbeKit

@Suite struct CaptureTimelineTests {
    let start = RealtimeInstant(parsing: "1764000000")!

    func at(_ milliseconds: Int64) -> RealtimeInstant {
        RealtimeInstant(nanoseconds: start.nanoseconds + milliseconds * 1_000_000)
    }

    @Test func framesBetweenLinesFollowTheRate() throws {
        let timeline = try CaptureTimeline(entries: [.period(firstFrame: 0, instant: start), .period(firstFrame: 240, instant: at(5))], sampleRate: 48_000)
        #expect(timeline.instant(ofFrame: 0) == start)
        #expect(timeline.instant(ofFrame: 48) == at(1))
        #expect(timeline.instant(ofFrame: 480) == at(10))
        #expect(timeline.firstFrame(atOrAfter: at(1), frameCount: 1000) == 48)
        #expect(timeline.firstFrame(atOrAfter: at(-1), frameCount: 1000) == 0)
        #expect(timeline.firstFrame(atOrAfter: at(100), frameCount: 1000) == 1000)
    }

    @Test func theEarliestEstimateWithinASecondWins() throws {
        // Line 2 is 3 ms late, line 3 on time: frames near line 2 take line 3's offset.
        let entries: [CaptureTimesEntry] = [
            .period(firstFrame: 0, instant: at(2)), .period(firstFrame: 240, instant: at(8)),
            .period(firstFrame: 480, instant: at(10)),
        ]
        let timeline = try CaptureTimeline(entries: entries, sampleRate: 48_000)
        #expect(timeline.instant(ofFrame: 0) == start)
        #expect(timeline.instant(ofFrame: 300) == at(0) + .microseconds(6250))
    }

    @Test func estimatesMoreThanASecondAwayDoNotCount() throws {
        let entries: [CaptureTimesEntry] = [
            .period(firstFrame: 0, instant: at(0)), .period(firstFrame: 96_000, instant: at(2_004)),
        ]
        let timeline = try CaptureTimeline(entries: entries, sampleRate: 48_000)
        #expect(timeline.instant(ofFrame: 96_000) == at(2_004))
    }

    @Test func anOverrunStartsANewStretch() throws {
        let entries: [CaptureTimesEntry] = [
            .period(firstFrame: 0, instant: at(0)), .period(firstFrame: 240, instant: at(5)),
            .xrun(at(300)), .period(firstFrame: 480, instant: at(310)),
        ]
        let timeline = try CaptureTimeline(entries: entries, sampleRate: 48_000)
        #expect(timeline.xruns == [at(300)])
        #expect(timeline.instant(ofFrame: 479) < at(10))
        #expect(timeline.instant(ofFrame: 480) == at(310))
        #expect(timeline.instant(ofFrame: 528) == at(311))
    }

    @Test func slidingMinimumMatchesBruteForce() {
        var random = UInt64(12345)
        func next() -> Int64 {
            random = random &* 6364136223846793005 &+ 1442695040888963407
            return Int64(random >> 40)
        }
        let keys = (0..<300).map { $0 * 240 + Int(next() % 100) }
        let values = keys.map { _ in next() }
        let fast = CaptureTimeline.slidingMinimum(values, at: keys, within: 5000)
        let slow = keys.map { key in zip(keys, values).filter { abs($0.0 - key) <= 5000 }.map(\.1).min()! }
        #expect(fast == slow)
    }

    @Test func timesLinesRoundTrip() throws {
        let entries: [CaptureTimesEntry] = [.period(firstFrame: 240, instant: at(5)), .xrun(at(7))]
        let text = entries.map(\.line).joined(separator: "\n") + "\n"
        #expect(text == "240 1764000000.005000\nxrun 1764000000.007000\n")
        #expect(try CaptureTimesEntry.parse(text) == entries)
    }

    @Test func recorderTimestampSubtractsBufferedAndReadFrames() {
        let now = at(100)
        let first = AudioRecorder.firstFrameInstant(readReturned: now, delayFrames: 96, framesRead: 240, rate: 48_000)
        #expect(first == at(93))
        #expect(AudioRecorder.firstFrameInstant(readReturned: now, delayFrames: -5, framesRead: 240, rate: 48_000) == at(95))
    }
}
