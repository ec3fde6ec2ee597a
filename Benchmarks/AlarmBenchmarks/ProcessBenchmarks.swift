import AlarmTestKit
import Glibc

/// The `alarmctl preview` invocation measured.
let previewArguments = [
    "preview", "--at", "07:30", "--repeat", "mon,fri", "--time-zone", "Europe/Berlin", "--after", "2026-03-01T00:00:00Z",
]
/// Its one answer: Monday 2 March 2026, 07:30 CET.
let previewExpectedOutput = "2026-03-02T07:30:00+01:00\n"

struct ProcessResult {
    let label: String
    let wall: Summary
    /// User + system CPU time of the child, from `wait4`'s rusage.
    let cpu: Summary
}

/// Spawns `executable` repeatedly with stdin, stdout and stderr on /dev/null, and times each
/// process from `posix_spawn` to the end of `wait4`.
func benchmarkProcess(label: String, executable: String, arguments: [String], samples: Int, warmup: Int) throws -> ProcessResult {
    let clock = ContinuousClock()
    var wall = Sampler(warmup: warmup, capacity: samples)
    var cpu = Sampler(warmup: warmup, capacity: samples)
    for _ in 0..<(warmup + samples) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let start = clock.now
        let pid = try ChildProcess.spawn(executable, arguments, environment: [:], actions: &actions)
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchmarkError("wait4 failed: errno \(errno)") }
        }
        let end = clock.now
        guard status == 0 else { throw BenchmarkError("\(executable) exited with status \(status)") }
        wall.record(end - start)
        let user = Double(usage.ru_utime.tv_sec) * 1e6 + Double(usage.ru_utime.tv_usec)
        let system = Double(usage.ru_stime.tv_sec) * 1e6 + Double(usage.ru_stime.tv_usec)
        cpu.record(.microseconds(Int64(user + system)))
    }
    return ProcessResult(label: label, wall: wall.summary, cpu: cpu.summary)
}

/// Runs the preview once with its output captured and checks the answer.
func checkPreview(_ executable: String) throws {
    let result = try ChildProcess.run(executable, previewArguments)
    guard result.exitStatus == 0, result.standardOutput == previewExpectedOutput else {
        throw BenchmarkError(
            "alarmctl preview answered \(result.standardOutput.debugDescription) (status \(String(describing: result.exitStatus)), "
            + "stderr \(result.standardError.debugDescription)), expected \(previewExpectedOutput.debugDescription)")
    }
}

func printProcessTable(_ results: [ProcessResult]) {
    let header = [["process (ms)", "wall p50", "wall p99", "wall max", "CPU p50", "CPU p99"]]
    let rows = results.map { result in
        [result.label, millis(result.wall.p50), millis(result.wall.p99), millis(result.wall.max),
         millis(result.cpu.p50), millis(result.cpu.p99)]
    }
    printTable(header, rows)
}

/// Whether `path` is an executable file.
func isExecutable(_ path: String) -> Bool {
    access(path, X_OK) == 0
}
