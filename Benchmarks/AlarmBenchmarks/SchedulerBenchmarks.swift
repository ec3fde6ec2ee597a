import AlarmEngine
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmTime
import FoundationEssentials

/// The scheduler operations measured, in table order.
enum SchedulerOperation: String, CaseIterable {
    case schedule = "schedule (new alarm)"
    case cancel = "cancel (existing)"
    case stopOneShot = "stop (alerting one-shot)"
    case stopRepeating = "stop (alerting weekly)"
    case nextDeadline = "nextDeadline (read)"
    case evaluate = "evaluate(now:), none due"
}

/// One size's results.
struct SchedulerResult {
    let size: Int
    let fillMicroseconds: Double
    var summaries: [SchedulerOperation: Summary] = [:]
}

/// Measures every ``SchedulerOperation`` on a scheduler that holds `size` alarms.
///
/// Each sample times exactly one call; whatever keeps the scheduler at `size` alarms (re-adding a
/// cancelled alarm, removing a newly scheduled one, preparing an alerting alarm) runs outside the
/// timed region. The scheduler does no I/O, so no figure here includes fsync.
func benchmarkScheduler(size: Int, samples: Int, warmup: Int, seed: UInt64) throws -> SchedulerResult {
    var workload = Workload(seed: seed)
    let filled = try FilledScheduler(count: size, workload: &workload)
    var scheduler = filled.scheduler
    var entries = filled.entries
    var result = SchedulerResult(size: size, fillMicroseconds: filled.fillMicroseconds)
    let clock = ContinuousClock()
    let now = Workload.now
    let total = warmup + samples

    // schedule: a new alarm of the mix into a scheduler holding `size`; removed again untimed.
    do {
        var sampler = Sampler(warmup: warmup, capacity: samples)
        for _ in 0..<total {
            let id = UUID()
            let owner = workload.owner()
            let definition = workload.definition()
            let start = clock.now
            let scheduled = try scheduler.schedule(id: id, owner: owner, definition: definition, now: now)
            let end = clock.now
            sampler.record(end - start)
            blackHole(scheduled)
            _ = try scheduler.perform(.cancel, id: id, owner: owner, now: now)
        }
        result.summaries[.schedule] = sampler.summary
    }
    precondition(scheduler.alarmCount == size)

    // cancel: a random existing alarm; re-added untimed with the same id and definition.
    do {
        var sampler = Sampler(warmup: warmup, capacity: samples)
        for _ in 0..<total {
            let entry = entries[Int.random(in: 0..<entries.count, using: &workload.rng)]
            let start = clock.now
            let outcome = try scheduler.perform(.cancel, id: entry.id, owner: entry.owner, now: now)
            let end = clock.now
            sampler.record(end - start)
            blackHole(outcome)
            _ = try scheduler.schedule(id: entry.id, owner: entry.owner, definition: entry.definition, now: now)
        }
        result.summaries[.cancel] = sampler.summary
    }
    precondition(scheduler.alarmCount == size)

    // stop, one-shot: a fixed alarm due at `now` is alerting as soon as it is scheduled (untimed);
    // stopping it removes it, so the scheduler holds `size` + 1 during the stop and `size` after.
    do {
        var sampler = Sampler(warmup: warmup, capacity: samples)
        for _ in 0..<total {
            let id = UUID()
            let owner = workload.owner()
            _ = try scheduler.schedule(id: id, owner: owner, definition: workload.dueNow(), now: now)
            precondition(scheduler.record(for: AlarmKey(owner: owner, id: id))?.phase.state == .alerting, "due-now alarm is not alerting")
            let start = clock.now
            let outcome = try scheduler.perform(.stop, id: id, owner: owner, now: now)
            let end = clock.now
            sampler.record(end - start)
            blackHole(outcome)
            precondition(scheduler.record(for: AlarmKey(owner: owner, id: id)) == nil, "stopped one-shot still exists")
        }
        result.summaries[.stopOneShot] = sampler.summary
    }
    precondition(scheduler.alarmCount == size)

    // stop, repeating: a daily alarm at the wall time of `now`, scheduled a minute earlier and
    // brought to alerting by evaluate(now:) (untimed); the stop computes its next occurrence
    // (tomorrow) and re-indexes it. It is cancelled again untimed.
    do {
        var sampler = Sampler(warmup: warmup, capacity: samples)
        for _ in 0..<total {
            let id = UUID()
            let owner = workload.owner()
            _ = try scheduler.schedule(id: id, owner: owner, definition: workload.dailyAtNow(), now: now.addingTimeInterval(-60))
            let started = scheduler.evaluate(now: now)
            precondition(started.events.count == 1 && scheduler.record(for: AlarmKey(owner: owner, id: id))?.phase.state == .alerting,
                         "daily alarm did not start alerting alone at now")
            let start = clock.now
            let outcome = try scheduler.perform(.stop, id: id, owner: owner, now: now)
            let end = clock.now
            sampler.record(end - start)
            blackHole(outcome)
            precondition(scheduler.record(for: AlarmKey(owner: owner, id: id))?.phase.state == .scheduled, "stopped weekly alarm did not move on")
            _ = try scheduler.perform(.cancel, id: id, owner: owner, now: now)
        }
        result.summaries[.stopRepeating] = sampler.summary
    }
    precondition(scheduler.alarmCount == size)

    // nextDeadline: a read of the earliest deadline.
    do {
        var sampler = Sampler(warmup: warmup, capacity: samples)
        for _ in 0..<total {
            let start = clock.now
            let deadline = scheduler.nextDeadline
            let end = clock.now
            sampler.record(end - start)
            blackHole(deadline)
        }
        result.summaries[.nextDeadline] = sampler.summary
    }

    // evaluate(now:) with nothing due: what every wake-up without work costs.
    do {
        var sampler = Sampler(warmup: warmup, capacity: samples)
        for _ in 0..<total {
            let start = clock.now
            let outcome = scheduler.evaluate(now: now)
            let end = clock.now
            sampler.record(end - start)
            blackHole(outcome)
            precondition(outcome.events.isEmpty, "something was due at now")
        }
        result.summaries[.evaluate] = sampler.summary
    }

    entries.removeAll()
    blackHole(scheduler)
    return result
}

/// Prints the side-by-side table of every size, with the growth ratio of the medians.
func printSchedulerTable(_ results: [SchedulerResult]) {
    var header1 = ["operation (µs)"]
    var header2 = [""]
    for result in results {
        header1 += ["N=\(grouped(result.size))", "", ""]
        header2 += ["p50", "p99", "max"]
    }
    let first = results.first!, last = results.last!
    header1 += ["p50 ratio", "p99 ratio"]
    header2 += ["\(grouped(last.size))/\(grouped(first.size))", "\(grouped(last.size))/\(grouped(first.size))"]
    var rows: [[String]] = []
    for operation in SchedulerOperation.allCases {
        var row = [operation.rawValue]
        for result in results {
            let summary = result.summaries[operation]!
            row += [micros(summary.p50), micros(summary.p99), micros(summary.max)]
        }
        let low = first.summaries[operation]!, high = last.summaries[operation]!
        row += [fixed(high.p50 / low.p50, 2) + "x", fixed(high.p99 / low.p99, 2) + "x"]
        rows.append(row)
    }
    printTable([header1, header2], rows)
    print("")
    for result in results {
        let perAlarm = result.fillMicroseconds / Double(result.size)
        print("  filling N=\(grouped(result.size)): \(millis(result.fillMicroseconds)) ms in all, \(micros(perAlarm)) µs per alarm (mean)")
    }
}
