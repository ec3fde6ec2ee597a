import AlarmClient
import AlarmControl
import AlarmProtocol
import AlarmKitCore
import AlarmTestKit
import FoundationEssentials
import Glibc

/// 7. `alarmd` as a service, on the simulated board (the hardware is fakes; everything else is
/// the real daemon): start to READY with 1,000 stored alarms, idle RSS with 100, control round
/// trips, and the size of the static release binary if one was built.
func runDaemonBenchmarks(
    quick: Bool, parent: String, alarmd: String, staticBinary: String?, scheduleSamplesPath: String?
) async throws {
    let board = repositoryRoot() + "/board/simulated.toml"
    print("== 7. alarmd on the simulated board (\(alarmd))")

    // Start to READY: from spawn to the READY=1 datagram on our NOTIFY_SOCKET, 1,000 alarms stored.
    let starts = quick ? 5 : 20
    let work = try TemporaryDirectory(parent: parent)
    var daemon = try DaemonProcess(alarmd: alarmd, board: board, directory: work.path)
    try await daemon.waitUntilReady()
    let client = ControlClient(path: daemon.socket)
    for index in 0..<1_000 {
        _ = try await client.schedule(id: Alarm.ID(), definition: benchmarkAlarm(index))
    }
    client.close()
    daemon.terminate()
    var startTimes: [Double] = []
    for _ in 0..<starts {
        let start = ContinuousClock.now
        daemon = try DaemonProcess(alarmd: alarmd, board: board, directory: work.path)
        try await daemon.waitUntilReady()
        startTimes.append(microseconds(ContinuousClock.now - start) / 1000)
        daemon.terminate()
    }
    let start = Summary(startTimes)

    // Round trips with 1,000 alarms stored, one client's: each list carries all of them.
    let roomForMore = "[alarms]\nmax_alarms = 2000\n"  // the default limit is 1,000
    daemon = try DaemonProcess(alarmd: alarmd, board: board, directory: work.path, configuration: roomForMore)
    try await daemon.waitUntilReady()
    let full = ControlClient(path: daemon.socket)
    var fullListTimes: [Double] = [], fullScheduleTimes: [Double] = []
    for _ in 0..<(quick ? 20 : 100) {
        let began = ContinuousClock.now
        let alarms = try await full.alarms()
        precondition(alarms.count >= 1_000)
        fullListTimes.append(microseconds(ContinuousClock.now - began) / 1000)
    }
    for index in 0..<(quick ? 20 : 100) {
        let began = ContinuousClock.now
        _ = try await full.schedule(id: Alarm.ID(), definition: benchmarkAlarm(2_000 + index))
        fullScheduleTimes.append(microseconds(ContinuousClock.now - began) / 1000)
    }
    full.close()
    daemon.terminate()
    let fullList = Summary(fullListTimes), fullSchedule = Summary(fullScheduleTimes)

    // Start to READY after a kill -9 right after a burst of 255 schedules: the journal holds
    // what the last snapshot does not, to be replayed over the 1,100 alarms.
    daemon = try DaemonProcess(alarmd: alarmd, board: board, directory: work.path, configuration: roomForMore)
    try await daemon.waitUntilReady()
    let burst = ControlClient(path: daemon.socket)
    for index in 0..<255 {
        _ = try await burst.schedule(id: Alarm.ID(), definition: benchmarkAlarm(1_000 + index))
    }
    daemon.kill()
    burst.close()
    let state = work.path + "/state"
    let crashed = TestFiles.names(in: state).map { ($0, TestFiles.read(state + "/" + $0) ?? []) }
    let journalEntries = crashed.first { $0.0 == "alarms.journal" }.map { file in
        (file.1.count { $0 == UInt8(ascii: "\n") } - 1) / 2  // a header line, then two lines per entry
    } ?? 0
    var crashStartTimes: [Double] = []
    for _ in 0..<starts {
        // Each start replays the journal and writes a snapshot: put the crashed files back first.
        for name in TestFiles.names(in: state) { unlink(state + "/" + name) }
        for (name, bytes) in crashed { try TestFiles.write(bytes, to: state + "/" + name) }
        let began = ContinuousClock.now
        daemon = try DaemonProcess(alarmd: alarmd, board: board, directory: work.path, configuration: roomForMore)
        try await daemon.waitUntilReady()
        crashStartTimes.append(microseconds(ContinuousClock.now - began) / 1000)
        daemon.terminate()
    }
    let crashStart = Summary(crashStartTimes)

    // Idle RSS and round trips with 100 alarms.
    let small = try TemporaryDirectory(parent: parent)
    daemon = try DaemonProcess(alarmd: alarmd, board: board, directory: small.path)
    try await daemon.waitUntilReady()
    let roundTrips = ControlClient(path: daemon.socket)
    var scheduleTimes: [Double] = [], listTimes: [Double] = [], emptyTimes: [Double] = []
    // The disk's own durable write, timed between the schedules: what a schedule's fdatasync
    // costs at that moment, so its share of the round trip can be told from the daemon's.
    let disk = try DiskSyncProbe(directory: small.path)
    for index in 0..<100 {
        let began = ContinuousClock.now
        _ = try await roundTrips.schedule(id: Alarm.ID(), definition: benchmarkAlarm(index))
        scheduleTimes.append(microseconds(ContinuousClock.now - began))
        try disk.sample()
    }
    let lists = quick ? 50 : 500
    for _ in 0..<lists {
        let began = ContinuousClock.now
        let alarms = try await roundTrips.alarms()
        precondition(alarms.count == 100)
        listTimes.append(microseconds(ContinuousClock.now - began))
    }
    // The floor of any round trip: a request with no payload, answered from memory.
    for _ in 0..<lists {
        let began = ContinuousClock.now
        _ = try await roundTrips.authorizationState()
        emptyTimes.append(microseconds(ContinuousClock.now - began))
    }
    roundTrips.close()
    // What `alarmctl` does: a connection of its own for one request.
    var connectTimes: [Double] = []
    for _ in 0..<lists {
        let began = ContinuousClock.now
        let once = ControlClient(path: daemon.socket)
        _ = try await once.authorizationState()
        once.close()
        connectTimes.append(microseconds(ContinuousClock.now - began))
    }
    // The client's share of a list: decoding 100 alarms from their JSON with JSONDecoder, as
    // ControlClient does.
    let listed = try await ControlClient(path: daemon.socket).alarms()
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .secondsSince1970
    let listJSON = try encoder.encode(listed)
    var decodeTimes: [Double] = []
    for _ in 0..<(quick ? 50 : 500) {
        let began = ContinuousClock.now
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let decoded = try decoder.decode([Alarm].self, from: listJSON)
        precondition(decoded.count == 100)
        decodeTimes.append(microseconds(ContinuousClock.now - began))
    }
    let decode = Summary(decodeTimes)
    try await Task.sleep(for: .seconds(2))  // idle: nothing due, nothing asked
    let rss = residentKiB(pid: daemon.pid)
    let memory = MemoryRollup(pid: daemon.pid)
    // More schedules, so that the p99 is not one sample; the one that fills the journal (256
    // entries) writes the snapshot too, and is among them.
    let moreSchedules = ControlClient(path: daemon.socket)
    for index in 100..<(quick ? 100 : 400) {
        let began = ContinuousClock.now
        _ = try await moreSchedules.schedule(id: Alarm.ID(), definition: benchmarkAlarm(index))
        scheduleTimes.append(microseconds(ContinuousClock.now - began))
        try disk.sample()
    }
    moreSchedules.close()
    daemon.terminate()
    let schedule = Summary(scheduleTimes), list = Summary(listTimes), empty = Summary(emptyTimes)
    let connect = Summary(connectTimes)
    let diskSync = Summary(disk.times)

    // The same schedules with the store in memory (tmpfs): the daemon's and the socket's share of
    // the round trip, without the disk's.
    var memoryScheduleTimes: [Double] = []
    // The daemon's CPU time per schedule, all its threads: its work, without the waits for the
    // disk and for a core that make the latency noisy on a shared machine.
    var cpuPerSchedule: Double?, cpuPerEmptyRequest: Double?
    if isDirectory("/dev/shm") {
        let inMemory = try TemporaryDirectory(parent: "/dev/shm")
        daemon = try DaemonProcess(alarmd: alarmd, board: board, directory: inMemory.path)
        try await daemon.waitUntilReady()
        let memoryClient = ControlClient(path: daemon.socket)
        _ = try await memoryClient.authorizationState()
        let cpuBefore = processCPUTime(pid: daemon.pid)
        for index in 0..<scheduleTimes.count {
            let began = ContinuousClock.now
            _ = try await memoryClient.schedule(id: Alarm.ID(), definition: benchmarkAlarm(index))
            memoryScheduleTimes.append(microseconds(ContinuousClock.now - began))
        }
        if let cpuBefore, let cpuAfter = processCPUTime(pid: daemon.pid) {
            cpuPerSchedule = microseconds(cpuAfter - cpuBefore) / Double(scheduleTimes.count)
        }
        // The same for a request with no payload: the share of reading, routing and answering.
        let emptyBefore = processCPUTime(pid: daemon.pid)
        for _ in 0..<scheduleTimes.count { _ = try await memoryClient.authorizationState() }
        if let emptyBefore, let emptyAfter = processCPUTime(pid: daemon.pid) {
            cpuPerEmptyRequest = microseconds(emptyAfter - emptyBefore) / Double(scheduleTimes.count)
        }
        memoryClient.close()
        daemon.terminate()
    }
    let memorySchedule = memoryScheduleTimes.isEmpty ? nil : Summary(memoryScheduleTimes)
    if let scheduleSamplesPath {
        // One line per schedule, in order: the round trip on disk, the disk alone, on tmpfs (µs).
        let lines = scheduleTimes.indices.map { index in
            let memory = index < memoryScheduleTimes.count ? "\(Int(memoryScheduleTimes[index].rounded()))" : "-"
            return "\(index) \(Int(scheduleTimes[index].rounded())) \(Int(disk.times[index].rounded())) \(memory)\n"
        }
        try TestFiles.write(Array(("# schedule disk-alone tmpfs (µs)\n" + lines.joined()).utf8), to: scheduleSamplesPath)
    }

    printTable(
        [["measure", "n", "p50", "p99", "max", "target"]],
        [
            ["start to READY, 1,000 alarms stored (ms)", "\(starts)", fixed(start.p50, 1), fixed(start.p99, 1), fixed(start.max, 1), "< 200 ms"],
            ["round trip with 1,000 alarms stored: list of all of them (ms)", "\(fullListTimes.count)", fixed(fullList.p50, 1), fixed(fullList.p99, 1), fixed(fullList.max, 1), "p99 ≤ 20 ms"],
            ["round trip with 1,000 alarms stored: schedule (ms, fsync included)", "\(fullScheduleTimes.count)", fixed(fullSchedule.p50, 1), fixed(fullSchedule.p99, 1), fixed(fullSchedule.max, 1), "p99 ≤ 20 ms"],
            ["  after a kill -9, with 255 more, \(journalEntries) journal entries to replay (ms)", "\(starts)", fixed(crashStart.p50, 1), fixed(crashStart.p99, 1), fixed(crashStart.max, 1), ""],
            ["round trip: schedule (µs, fsync included)", "\(scheduleTimes.count)", fixed(schedule.p50, 0), fixed(schedule.p99, 0), fixed(schedule.max, 0), ""],
            ["  the disk alone: 1 KiB append + fdatasync, between the schedules (µs)", "\(disk.times.count)", fixed(diskSync.p50, 0), fixed(diskSync.p99, 0), fixed(diskSync.max, 0), ""],
            ["  the same schedules with the store on tmpfs: without the disk (µs)", "\(memoryScheduleTimes.count)", memorySchedule.map { fixed($0.p50, 0) } ?? "-", memorySchedule.map { fixed($0.p99, 0) } ?? "-", memorySchedule.map { fixed($0.max, 0) } ?? "-", ""],
            ["round trip: list of 100 (µs)", "\(lists)", fixed(list.p50, 0), fixed(list.p99, 0), fixed(list.max, 0), ""],
            ["round trip: authorization state, no payload (µs)", "\(emptyTimes.count)", fixed(empty.p50, 0), fixed(empty.p99, 0), fixed(empty.max, 0), ""],
            ["  the same on a new connection each, as alarmctl: connect, ask, close (µs)", "\(connectTimes.count)", fixed(connect.p50, 0), fixed(connect.p99, 0), fixed(connect.max, 0), ""],
            ["  client decoding 100 alarms, JSONDecoder (µs)", "\(decodeTimes.count)", fixed(decode.p50, 0), fixed(decode.p99, 0), fixed(decode.max, 0), ""],
        ])
    print("idle RSS with 100 alarms: \(rss.map { "\(fixed(Double($0) / 1024, 1)) MiB" } ?? "unknown") (the budget, ≤ 24 MiB, is after a ring on the Pi profile: Benchmarks/idle-rss.sh --ring)")
    if let cpuPerSchedule, let cpuPerEmptyRequest {
        print("the daemon's CPU time (all threads, store on tmpfs; mean of \(memoryScheduleTimes.count)): "
            + "\(fixed(cpuPerSchedule, 0)) µs per schedule, \(fixed(cpuPerEmptyRequest, 0)) µs per request with no payload")
    }
    if let memory {
        print("  of which file-backed \(memory.mebibytes(\.fileBacked)) MiB (the binary's and the libraries' pages: "
            + "private clean \(memory.mebibytes(\.privateClean)), shared clean \(memory.mebibytes(\.sharedClean))), "
            + "anonymous \(memory.mebibytes(\.anonymous)) MiB (smaps_rollup)")
    }
    if let staticBinary {
        var info = stat()
        if stat(staticBinary, &info) == 0 {
            print("static release binary \(staticBinary): \(fixed(Double(info.st_size) / 1_048_576, 1)) MiB (target < 25 MB stripped)")
        }
    }
}

private func benchmarkAlarm(_ index: Int) -> AlarmDefinition {
    AlarmDefinition(
        schedule: .relative(.init(time: .init(hour: index % 24, minute: index % 60), repeats: .weekly([.monday, .friday]))),
        countdownDuration: .init(preAlert: nil, postAlert: 540),
        presentation: AlarmPresentation(
            alert: .init(title: "Alarm \(index)", stopButton: .stop, secondaryButton: .snooze, secondaryButtonBehavior: .countdown)))
}

private func isDirectory(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
}

/// The package root, from this file's path.
private func repositoryRoot() -> String {
    "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
}

/// The CPU time a process has used so far, all its threads (also those that ended), in
/// nanoseconds: Linux lets any process read another's CPU-time clock.
private func processCPUTime(pid: pid_t) -> Duration? {
    var clock = clockid_t()
    guard clock_getcpuclockid(pid, &clock) == 0 else { return nil }
    var time = timespec()
    guard clock_gettime(clock, &time) == 0 else { return nil }
    return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
}

/// Resident memory of a process, from /proc/PID/status.
private func residentKiB(pid: pid_t) -> Int? {
    guard let bytes = TestFiles.read("/proc/\(pid)/status") else { return nil }
    let text = String(decoding: bytes, as: UTF8.self)
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
}

/// The resident set by kind, from /proc/PID/smaps_rollup (KiB).
private struct MemoryRollup {
    var rss = 0, anonymous = 0, privateClean = 0, sharedClean = 0
    var fileBacked: Int { rss - anonymous }

    init?(pid: pid_t) {
        guard let bytes = TestFiles.read("/proc/\(pid)/smaps_rollup") else { return nil }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kibibytes = Int(fields[1]) else { continue }
            switch fields[0] {
            case "Rss:": rss = kibibytes
            case "Anonymous:": anonymous = kibibytes
            case "Private_Clean:": privateClean = kibibytes
            case "Shared_Clean:": sharedClean = kibibytes
            default: break
            }
        }
        guard rss > 0 else { return nil }
    }

    func mebibytes(_ field: KeyPath<MemoryRollup, Int>) -> String {
        fixed(Double(self[keyPath: field]) / 1024, 1)
    }
}

/// A headless `alarmd` with its own NOTIFY_SOCKET, so READY=1 is observed exactly.
private struct DaemonProcess {
    let pid: pid_t
    let socket: String
    private let notify: Int32

    init(alarmd: String, board: String, directory: String, configuration: String = "") throws {
        socket = directory + "/control.sock"
        let notifyPath = directory + "/notify.sock"
        unlink(notifyPath)
        let notify = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.notify = notify
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in notifyPath.utf8.enumerated() where index < raw.count - 1 { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(notify, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        precondition(bound == 0, "cannot bind \(notifyPath)")
        let config = directory + "/alarmd.toml"
        try TestFiles.write(Array(configuration.utf8), to: config)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        pid = try ChildProcess.spawn(
            alarmd, ["--config", config, "--board", board, "--state-dir", directory + "/state", "--socket", socket,
                     "--log-level", "warning"],
            environment: ["NOTIFY_SOCKET": notifyPath, "MALLOC_ARENA_MAX": "1"], actions: &actions)
    }

    /// Waits (up to 30 s) for READY=1.
    func waitUntilReady() async throws {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var descriptor = pollfd(fd: notify, events: Int16(POLLIN), revents: 0)
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            guard poll(&descriptor, 1, 100) > 0 else { continue }
            let count = recv(notify, &buffer, buffer.count, 0)
            if count > 0, String(decoding: buffer[0..<count], as: UTF8.self).contains("READY=1") { return }
        }
        struct NotReady: Error {}
        throw NotReady()
    }

    /// Kills it with SIGKILL, as a crash or the OOM killer would.
    func kill() {
        end(with: SIGKILL)
    }

    func terminate() {
        end(with: SIGTERM)
    }

    private func end(with signal: Int32) {
        Glibc.kill(pid, signal)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(notify)
    }
}

/// Times a 1 KiB append and its `fdatasync` in a file of its own, as the store's journal does.
private final class DiskSyncProbe {
    private let descriptor: Int32
    private let path: String
    private(set) var times: [Double] = []
    private let entry = [UInt8](repeating: UInt8(ascii: "x"), count: 1_024)

    init(directory: String) throws {
        path = directory + "/disk-sync-probe"
        descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw BenchmarkError("cannot create \(path): errno \(errno)") }
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    func sample() throws {
        let began = ContinuousClock.now
        let written = entry.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == entry.count, fdatasync(descriptor) == 0 else { throw BenchmarkError("\(path): errno \(errno)") }
        times.append(microseconds(ContinuousClock.now - began))
    }
}
