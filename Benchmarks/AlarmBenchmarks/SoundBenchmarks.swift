import AlarmALSA
import AlarmHardware
import AlarmTestKit
import Glibc

/// 5. The ALSA backend through the real libasound, on the `file` plugin over `null` (no sound
/// card here): `stop()` latency, frames per write and wake-ups of the writer, CPU of a playing
/// alarm. The null device takes data at once, so the writer paces itself to real time: what it
/// does per second is what it would do on a card.
func runSoundBenchmarks(quick: Bool) async throws {
    let configuration = """
        pcm.alarmbench {
            type plug
            slave {
                pcm { type file; file "/dev/null"; format "raw"; slave.pcm { type null } }
                format S16_LE
            }
        }
        """
    let output = ALSAAudioOutput(device: "alarmbench", configuration: configuration)
    let gain = GainRamp(from: -36, to: -6, over: .seconds(30))

    // stop(): from the call to its return, which comes after snd_pcm_drop and snd_pcm_close on
    // the writer thread. Each sample plays the looping tone for a moment first.
    let samples = quick ? 10 : 50
    var stops: [Double] = []
    for index in 0..<(samples + 5) {
        try await output.play(.builtInTone, gain: gain, looping: true)
        try await Task.sleep(for: .milliseconds(quick ? 30 : 100))
        let start = ContinuousClock.now
        await output.stop()
        if index >= 5 { stops.append(microseconds(ContinuousClock.now - start)) }
    }
    let stop = Summary(stops)

    // play(): from the call to its return (the first period written), and to the buffer's
    // last period written. Cold: the device opened and the sound loaded by the play; prepared:
    // as an alert starts, after `prepare` opened the device and decoded a file's opening. The
    // built-in tone and 60 s files of a 1 kHz tone, 48 kHz mono, in the formats people have.
    let scratch = try TemporaryDirectory()
    let tone = TestSoundFiles.sine(frequency: 1_000, seconds: 60, rate: 48_000)
    var sources: [(String, SoundSource)] = [("built-in tone", .builtInTone)]
    for format in [TestSoundFiles.Format.wav, .flac, .mp3] {
        let path = scratch.path + "/tone." + format.rawValue
        try TestSoundFiles.write(tone, to: path, as: format, rate: 48_000)
        sources.append(("60 s \(format.rawValue.uppercased()) file", .file(path)))
    }
    let periodsPerBuffer = ALSAAudioOutput.bufferMicroseconds / ALSAAudioOutput.periodMicroseconds
    var starts: [(name: String, returned: Summary, started: Summary)] = []
    for (name, source, prepared) in sources.flatMap({ [($0.0 + ", cold", $0.1, false), ($0.0 + ", prepared", $0.1, true)] }) {
        var returned: [Double] = [], started: [Double] = []
        for index in 0..<(samples + 5) {
            await output.stop()
            if prepared {
                let opens = output.statistics.opens
                await output.prepare(source, for: .seconds(30))
                while output.statistics.opens == opens { try await Task.sleep(for: .milliseconds(1)) }
            }
            let writesBefore = output.statistics.writes
            let start = ContinuousClock.now
            try await output.play(source, gain: gain, looping: true)
            let afterReturn = ContinuousClock.now
            while output.statistics.writes - writesBefore < periodsPerBuffer {}  // a few ms at most
            let afterBuffer = ContinuousClock.now
            if index >= 5 {
                returned.append(microseconds(afterReturn - start))
                started.append(microseconds(afterBuffer - start))
            }
        }
        await output.stop()
        starts.append((name, Summary(returned), Summary(started)))
    }

    // A playing alarm, in real time for a while: the looping tone, and the MP3 decoded as it plays.
    let seconds = quick ? 2.0 : 10.0
    var playing: [[String]] = []
    var framesPerSecond = 0.0
    for (name, source) in [("looping tone, crescendo", SoundSource.builtInTone), ("60 s MP3 file, crescendo", sources[3].1)] {
        let before = output.statistics
        let cpuBefore = processCPUTime()
        let wallBefore = ContinuousClock.now
        try await output.play(source, gain: gain, looping: true)
        try await Task.sleep(for: .seconds(seconds))
        await output.stop()
        let wall = ContinuousClock.now - wallBefore
        let cpu = processCPUTime() - cpuBefore
        let after = output.statistics
        let writes = after.writes - before.writes, frames = after.frames - before.frames, waits = after.waits - before.waits
        let wallSeconds = wall / .seconds(1)
        framesPerSecond = Double(frames) / wallSeconds
        playing.append([
            name, fixed(wallSeconds, 1), "\(writes)", "\(frames)", fixed(Double(frames) / Double(max(writes, 1)), 0),
            fixed(Double(waits) / wallSeconds, 1), fixed(cpu / .milliseconds(1), 1), fixed(100 * (cpu / wall), 2),
        ])
    }

    print("== 5. Sound: ALSAAudioOutput on the file plugin over null, 48 kHz mono built-in tone, \(ALSAAudioOutput.periodMicroseconds / 1000) ms periods in a \(ALSAAudioOutput.bufferMicroseconds / 1000) ms buffer")
    printTable(
        [["stop() -> returned (after snd_pcm_drop + close)", "n", "p50 µs", "p99 µs", "max µs"]],
        [["looping tone playing", "\(stops.count)", fixed(stop.p50, 0), fixed(stop.p99, 0), fixed(stop.max, 0)]])
    print("")
    printTable(
        [["play() -> returned / -> buffer full (the card starts)", "n", "returned p50 µs", "p99 µs", "buffer full p50 µs", "p99 µs"]],
        starts.map { start in
            [start.name, "\(start.returned.count)", fixed(start.returned.p50, 0), fixed(start.returned.p99, 0),
             fixed(start.started.p50, 0), fixed(start.started.p99, 0)]
        })
    print("")
    printTable(
        [["playing", "s", "writes", "frames", "frames/write", "writer wake-ups/s", "CPU ms", "CPU % of a core"]], playing)
    print("(process CPU over the whole interval: the writer thread plus an idle runtime; \(fixed(framesPerSecond, 0)) frames/s written)")
}
