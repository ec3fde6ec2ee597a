import AlarmEngine
import AlarmKitCore
import AlarmProtocol
import AlarmTime
import FoundationEssentials
import Logging
import Synchronization

/// A wall clock at ``Workload/now`` that moves one microsecond per reading, so the runtime sees
/// the scheduler benchmarks' instant and, as on a device, no two alarms are created at the same
/// instant. Nothing here runs the runtime's timer, so `sleep` is never reached.
final class CreepingClock: WallClock {
    private let readings = Atomic<Int>(0)

    var now: Date {
        let count = readings.add(1, ordering: .relaxed).newValue
        return Workload.now.addingTimeInterval(Double(count) * 1e-6)
    }
    var monotonicNow: Duration { .seconds(1_000) }

    func sleep(until deadline: Date) async throws -> WallClockWake {
        try await Task.sleep(for: .seconds(3_600))
        return .deadlineReached
    }
}

/// Always Europe/Berlin.
struct BerlinZone: TimeZoneProvider {
    func currentZone() throws(TimeZoneError) -> TimeZoneRules { Workload.berlin }
    func changes() -> AsyncStream<Void> { AsyncStream { _ in } }
}

struct RuntimeResult {
    let size: Int
    /// `AlarmRuntime.schedule`: actor hop, scheduler, snapshot, encode, two atomic replaces, publish.
    let schedule: Timing
    /// `AlarmRuntime.perform(.cancel)` of the alarm just scheduled: the same path for a removal.
    let cancel: Timing
}

/// Measures the runtime's client operations with `size` alarms: each one is acknowledged only after
/// the whole store has been rewritten durably, so this includes encode and fsync.
func benchmarkRuntime(size: Int, samples: Int, warmup: Int, parent: String, seed: UInt64) async throws -> RuntimeResult {
    let directory = try BenchmarkDirectory(parent: parent, name: "runtime-\(size)")
    // The store is written once up front rather than through `size` client calls, each of which
    // would rewrite the whole store.
    try AlarmStore(directory: directory.path, logger: silentLogger).save(storedState(size: size, seed: seed))
    let runtime = try AlarmRuntime(
        configuration: .init(policy: Workload.policy, clockTrust: .always, storeDirectory: directory.path),
        clock: CreepingClock(), timeZones: BerlinZone(), authorizer: FixedAuthorization(.authorized),
        logger: silentLogger)
    // Each new alarm is cancelled right after it is scheduled, so the runtime holds `size` alarms
    // at every schedule and `size` + 1 at every cancel; both calls are timed, separately.
    var workload = Workload(seed: seed &+ 1)
    let clock = ContinuousClock()
    var scheduleWall = Sampler(warmup: warmup, capacity: samples), scheduleCPU = Sampler(warmup: warmup, capacity: samples)
    var cancelWall = Sampler(warmup: warmup, capacity: samples), cancelCPU = Sampler(warmup: warmup, capacity: samples)
    for _ in 0..<(warmup + samples) {
        let id = UUID()
        let owner = workload.owner()
        let definition = workload.definition()
        var cpuStart = processCPUTime()
        var start = clock.now
        let alarm = try await runtime.schedule(id: id, definition: definition, client: owner)
        var end = clock.now
        var cpuEnd = processCPUTime()
        scheduleWall.record(end - start)
        scheduleCPU.record(cpuEnd - cpuStart)
        blackHole(alarm)
        cpuStart = processCPUTime()
        start = clock.now
        try await runtime.perform(.cancel, id: id, client: owner)
        end = clock.now
        cpuEnd = processCPUTime()
        cancelWall.record(end - start)
        cancelCPU.record(cpuEnd - cpuStart)
    }
    let schedule = Timing(wall: scheduleWall.summary, cpu: scheduleCPU.summary)
    let cancel = Timing(wall: cancelWall.summary, cpu: cancelCPU.summary)
    var count = 0
    for owner in Workload.owners { count += await runtime.alarms(for: owner).count }
    precondition(count == size, "the runtime holds \(count) alarms, not \(size)")
    return RuntimeResult(size: size, schedule: schedule, cancel: cancel)
}

func printRuntimeTable(_ results: [RuntimeResult]) {
    printTimingTable(
        title: "runtime, durable (ms)", sizes: results.map(\.size),
        rows: [
            ("AlarmRuntime.schedule", results.map(\.schedule)),
            ("AlarmRuntime.perform(.cancel)", results.map(\.cancel)),
        ])
}
