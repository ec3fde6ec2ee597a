import AlarmEngine
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmTestKit
import FoundationEssentials
import Glibc
import Logging
import Testing

/// A child process applying changes is killed with SIGKILL at random points, hundreds of times;
/// every time the store loads and holds every acknowledged change.
///
/// The kill points are random and depend on timing, and that is the point: the assertions hold for
/// any kill point, so a failure is a real loss whichever run finds it. The child's protocol is in
/// `Tests/StoreCrashChild/main.swift`.
@Suite struct CrashSafetyTests {
    static let batches = 10
    static let killsPerBatch = 30
    static let seed: UInt64 = 0xA1A2_3D5E

    @Test func everyAcknowledgedChangeSurvivesSIGKILLAtAnyPoint() throws {
        var random = SeededRandomNumberGenerator(seed: Self.seed)
        for batch in 0..<Self.batches {
            // A fresh store per batch covers a kill during the very first save; within a batch state
            // accumulates, so every start loads a store left by a killed process.
            let scratch = try TemporaryDirectory()
            let store = scratch.path + "/store"
            var ledger = Ledger()
            for kill in 0..<Self.killsPerBatch {
                let iteration = batch * Self.killsPerBatch + kill
                let plan = KillPlan(using: &random)
                let childSeed = Self.seed &+ UInt64(iteration)
                let lines = try runUntilKilled(store: store, seed: childSeed, plan: plan, scratch: scratch.path, iteration: iteration)
                let context = "iteration \(iteration) (child seed \(childSeed), \(plan), last line \(lines.last ?? "none"))"
                for line in lines {
                    if let problem = ledger.apply(line) {
                        Issue.record("\(context): \(problem)")
                    }
                }
                try verify(store: store, against: &ledger, context: context)
            }
        }
    }

    /// Starts the child, kills it where `plan` says, and returns every line it wrote.
    private func runUntilKilled(store: String, seed: UInt64, plan: KillPlan, scratch: String, iteration: Int) throws -> [String] {
        let errorPath = scratch + "/stderr"
        let child = try RunningChild(ChildProcess.product("alarm-store-crash-child"), [store, "\(seed)"], standardErrorPath: errorPath)
        var lines: [String] = []
        var acks = 0
        reading: while !plan.immediately, let line = try child.readLine() {
            lines.append(line)
            if line.hasPrefix("ACK ") { acks += 1 }
            let begins = line.hasPrefix("BEGIN ")
            if acks == plan.acks && begins == plan.afterBegin { break reading }
        }
        if plan.writesIntoTheChange > 0 {
            child.waitForWriteCalls(plan.writesIntoTheChange)
        }
        child.kill(SIGKILL)
        lines += try child.readRemainingLines()
        let end = child.wait()
        let errors = String(decoding: TestFiles.read(errorPath) ?? [], as: UTF8.self)
        #expect(end.signal == SIGKILL, "iteration \(iteration): the child \(end), not by SIGKILL; stderr: \(errors)")
        return lines
    }

    /// Loads the store as the next start would and compares it with what was acknowledged; then
    /// takes what is on disk as the truth for the next child.
    private func verify(store: String, against ledger: inout Ledger, context: String) throws {
        let names = TestFiles.names(in: store)
        let unexpected = names.filter { !Self.storeFileNames.contains($0) }
        #expect(unexpected.isEmpty, "\(context): a kill left unexpected files: \(unexpected)")
        let loaded = AlarmStore(directory: store, logger: Self.silent).load()
        #expect(loaded.problems.isEmpty, "\(context): the store was damaged: \(loaded.problems)")
        var onDisk: [Alarm.ID: AlarmRecord] = [:]
        for record in loaded.state?.scheduler.alarms ?? [] {
            onDisk[record.id] = record
        }
        for id in Set(onDisk.keys).union(ledger.mentionedIDs) {
            let found = onDisk[id].map { Outcome.present($0.phase.state) } ?? .absent
            let allowed = ledger.allowedOutcomes(of: id)
            #expect(allowed.contains(found), "\(context): alarm \(id) is \(found) on disk; allowed: \(allowed.sorted())")
            if let record = onDisk[id], let kind = ledger.kinds[id] {
                #expect(Self.kind(of: record.definition) == kind, "\(context): alarm \(id) is no longer a \(kind) alarm")
            }
        }
        ledger.restart(from: onDisk.mapValues(\.phase.state))
    }

    static let storeFileNames: Set<String> = [
        "alarms.store", "alarms.store.backup", "alarms.store.tmp", "alarms.store.backup.tmp", "alarms.journal",
        // A kill while the journal is rewritten without the entries a snapshot holds.
        "alarms.journal.tmp",
    ]
    static let silent = Logger(label: "crash-safety-test", factory: { _ in SwiftLogNoOpLogHandler() })

    static func kind(of definition: AlarmDefinition) -> String {
        switch definition.schedule {
        case nil: "timer"
        case .fixed: "fixed"
        case .relative(let relative):
            if case .weekly = relative.repeats { "weekly" } else { "once" }
        }
    }
}

/// Where to kill one child.
private struct KillPlan: CustomStringConvertible {
    /// Kill at once after starting it, usually before or while it loads.
    var immediately: Bool
    /// How many acknowledgements to read first.
    var acks: Int
    /// Kill once the next change has begun rather than right after an acknowledgement.
    var afterBegin: Bool
    /// How many more write(2) calls of the child to wait for (its progress through the change:
    /// the primary's temporary file, the backup's, the ACK line) before the kill. Without this
    /// nearly every kill lands before the save starts. It only spreads the kill points, by the
    /// child's own progress rather than by time: no assertion depends on where a kill lands.
    var writesIntoTheChange: Int

    init(using random: inout SeededRandomNumberGenerator) {
        immediately = Int.random(in: 0..<100, using: &random) < 8
        acks = Int.random(in: 0...8, using: &random)
        afterBegin = Int.random(in: 0..<100, using: &random) < 70
        writesIntoTheChange = afterBegin ? Int.random(in: 0...3, using: &random) : 0
    }

    var description: String {
        if immediately { return "killed at start" }
        return "killed after \(acks) ACKs" + (afterBegin ? " and a BEGIN + \(writesIntoTheChange) writes" : "")
    }
}

private enum Outcome: Hashable, Comparable, CustomStringConvertible {
    case absent
    case present(Alarm.State)

    var description: String {
        switch self {
        case .absent: "absent"
        case .present(let state): state.rawValue
        }
    }

    static func < (lhs: Outcome, rhs: Outcome) -> Bool { lhs.description < rhs.description }
}

/// What the children acknowledged, and the one change that may have been in flight at the kill.
private struct Ledger {
    var acknowledged: [Alarm.ID: Alarm.State] = [:]
    var kinds: [Alarm.ID: String] = [:]
    var inFlight: (operation: String, id: Alarm.ID)?

    var mentionedIDs: Set<Alarm.ID> {
        var ids = Set(acknowledged.keys)
        if let inFlight { ids.insert(inFlight.id) }
        return ids
    }

    /// Follows one line of the child; returns what is wrong with it, if anything.
    mutating func apply(_ line: String) -> String? {
        let fields = line.split(separator: " ").map(String.init)
        switch (fields.first, fields.count) {
        case ("LOADED", 2):
            return Int(fields[1]) == acknowledged.count ? nil : "the child loaded \(fields[1]) alarms, not \(acknowledged.count)"
        case ("BEGIN", 3...4):
            guard inFlight == nil else { return "\(line) while \(inFlight!) is unacknowledged" }
            guard let id = UUID(uuidString: fields[2]) else { return "bad line: \(line)" }
            inFlight = (fields[1], id)
            if fields.count == 4 { kinds[id] = fields[3] }
            return nil
        case ("ACK", 3...4):
            guard let inFlight, inFlight.operation == fields[1], inFlight.id.uuidString == fields[2] else {
                return "\(line) does not match \(inFlight.map { "\($0)" } ?? "any BEGIN")"
            }
            self.inFlight = nil
            if fields.count == 4 {
                guard let state = Alarm.State(rawValue: fields[3]) else { return "bad line: \(line)" }
                acknowledged[inFlight.id] = state
            } else {
                acknowledged[inFlight.id] = Self.outcome(of: inFlight.operation, kind: nil).state
            }
            return nil
        default:
            return "bad line: \(line)"
        }
    }

    /// The acknowledged outcome; for the change in flight, also the outcome of completing it.
    func allowedOutcomes(of id: Alarm.ID) -> Set<Outcome> {
        let before = acknowledged[id].map(Outcome.present) ?? .absent
        guard let inFlight, inFlight.id == id else { return [before] }
        return [before, Self.outcome(of: inFlight.operation, kind: kinds[id])]
    }

    mutating func restart(from disk: [Alarm.ID: Alarm.State]) {
        acknowledged = disk
        inFlight = nil
    }

    private static func outcome(of operation: String, kind: String?) -> Outcome {
        switch operation {
        case "schedule": .present(kind == "timer" ? .countdown : .scheduled)
        case "pause": .present(.paused)
        case "resume": .present(.countdown)
        default: .absent
        }
    }
}

extension Outcome {
    fileprivate var state: Alarm.State? {
        if case .present(let state) = self { state } else { nil }
    }
}
