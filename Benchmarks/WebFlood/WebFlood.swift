import ArgumentParser
import Glibc
import LinuxSupport
import Synchronization

/// `alarm-web-flood`: floods alarm-web as a hostile host on the LAN would (idle connections held
/// open, 1 MiB headers, 512 MiB bodies, requests sent a byte a second), while a paired phone asks
/// for the page's state; prints how the phone was answered and how much memory alarm-web took.
///
/// No dependency beyond the package's, so that it runs in the QEMU guest (Tests/Integration)
/// beside the alarm-to-sound measurements. Bounded: it stops by itself after `--seconds`.
@main
struct WebFlood: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alarm-web-flood",
        abstract: "Flood alarm-web while a paired phone polls it; report the phone's latency and alarm-web's memory.",
        discussion: """
            Sends traffic only to ADDRESS:PORT (a loopback address, or the test guest's). Each \
            kind of flood runs on threads of its own and starts again whenever alarm-web closes \
            its connection. SIGTERM or SIGINT ends it early, as --seconds running out does. Prints one line: what was sent and how it was answered, the phone's \
            answers (median, 95th percentile and worst latency), and alarm-web's RSS (with --pid).
            """
    )

    @Option(help: "alarm-web's address (IPv4).") var address = "127.0.0.1"
    @Option(help: "alarm-web's port.") var port: UInt16
    @Option(help: "The Host header sent (default ADDRESS:PORT).") var host: String?
    @Option(name: .customLong("flood-from"), help: ArgumentHelp(
        "The address the flood's connections come from (another loopback address such as 127.0.0.2 plays another host); the phone's come from the default.",
        valueName: "ADDRESS"))
    var floodFrom: String?
    @Option(help: "Idle connections held open, opened again when closed.") var idle = 2000
    @Option(name: .customLong("huge-headers"), help: "Connections each sending a 1 MiB header, again and again.") var hugeHeaders = 4
    @Option(name: .customLong("huge-bodies"), help: "Connections each posting a 512 MiB body, again and again.") var hugeBodies = 2
    @Option(help: "Connections sending a request one byte a second.") var slow = 100
    @Option(help: "How long to flood, in seconds.") var seconds = 30.0
    @Option(help: "The paired phone's alarm_session cookie: with it, GET /api/state every --interval-ms on a new connection.")
    var cookie: String?
    @Option(name: .customLong("interval-ms"), help: "Between the phone's requests.") var intervalMS = 100
    @Option(help: "alarm-web's process id: its VmRSS is read after each of the phone's requests, its VmHWM at the end.")
    var pid: Int32?
    @Flag(help: "Print the result as one line of JSON.") var json = false

    func validate() throws {
        guard seconds > 0, seconds <= 3600 else { throw ValidationError("--seconds must be more than 0 and at most 3600") }
        guard [idle, hugeHeaders, hugeBodies, slow].allSatisfy({ (0...20_000).contains($0) }) else {
            throw ValidationError("connection counts must be 0 to 20000")
        }
        guard intervalMS >= 1 else { throw ValidationError("--interval-ms must be at least 1") }
        guard Target(address: address, port: port, host: nil).socketAddress != nil else {
            throw ValidationError("--address must be an IPv4 address")
        }
        if let floodFrom, Target.socketAddress(floodFrom, port: 0) == nil {
            throw ValidationError("--flood-from must be an IPv4 address")
        }
    }

    func run() throws {
        raiseOpenFileLimit()
        signal(SIGPIPE, SIG_IGN)
        let target = Target(address: address, port: port, host: host ?? "\(address):\(port)")
        let flood = Flood(target: Target(address: address, port: port, host: target.host, source: floodFrom))
        // A harness that cannot know how long its own measurement takes ends the flood with a signal.
        for stopping in [SIGTERM, SIGINT] {
            signal(stopping) { _ in WebFlood.stopRequested.store(true, ordering: .relaxed) }
        }
        let started = monotonicSeconds()
        let end = started + seconds
        if idle > 0 { DetachedThread.start { flood.holdIdle(idle, until: end) } }
        if slow > 0 { DetachedThread.start { flood.sendSlowly(slow, until: end) } }
        for _ in 0..<hugeHeaders { DetachedThread.start { flood.sendHugeHeaders(until: end) } }
        for _ in 0..<hugeBodies { DetachedThread.start { flood.sendHugeBodies(until: end) } }
        var latencies: [Double] = []
        var answers: [Int: Int] = [:]
        var rss = 0
        while monotonicSeconds() < end, !Self.stopRequested.load(ordering: .relaxed) {
            if let cookie {
                let started = monotonicSeconds()
                let status = target.request(
                    "GET /api/state HTTP/1.1\r\nHost: \(target.host)\r\nCookie: alarm_session=\(cookie)\r\nConnection: close\r\n\r\n")
                latencies.append((monotonicSeconds() - started) * 1000)
                answers[status ?? 0, default: 0] += 1
            }
            if let pid { rss = max(rss, Self.memory(of: pid, field: "VmRSS:") ?? 0) }
            usleep(useconds_t(intervalMS) * 1000)
        }
        let peak = pid.flatMap { Self.memory(of: $0, field: "VmHWM:") }
        print(report(
            flood.counts, elapsed: min(monotonicSeconds() - started, seconds), latencies: latencies.sorted(), answers: answers,
            rss: rss, peak: peak))
    }

    /// Set by SIGTERM and SIGINT: the phone stops asking and the result is printed (the flood's
    /// threads end with the process).
    static let stopRequested = Atomic<Bool>(false)

    private func report(_ counts: Flood.Counts, elapsed: Double, latencies: [Double], answers: [Int: Int], rss: Int, peak: Int?) -> String {
        func percentile(_ p: Double) -> Double {
            latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int((Double(latencies.count) * p).rounded(.down)))]
        }
        let statuses = counts.statuses.sorted { $0.key < $1.key }.map { "\($0.key == 0 ? "none" : String($0.key)) x\($0.value)" }
        let phone = answers.sorted { $0.key < $1.key }.map { "\($0.key == 0 ? "none" : String($0.key)) x\($0.value)" }
        let mebibytes = { (kib: Int) in Double(kib) / 1024 }
        if json {
            let fields: [String] = [
                "\"seconds\":\(Self.tenths(elapsed))", "\"idleOpened\":\(counts.idleOpened)", "\"idleClosedByServer\":\(counts.idleClosed)",
                "\"connectFailures\":\(counts.connectFailures)", "\"hugeHeadersSent\":\(counts.headers)",
                "\"hugeBodiesStarted\":\(counts.bodies)", "\"bodyMiBSent\":\(counts.bodyBytes >> 20)",
                "\"slowOpened\":\(counts.slowOpened)",
                "\"floodAnswers\":{\(counts.statuses.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ","))}",
                "\"phoneRequests\":\(latencies.count)",
                "\"phoneAnswers\":{\(answers.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ","))}",
                "\"phoneMedianMs\":\(percentile(0.5))", "\"phoneP95Ms\":\(percentile(0.95))", "\"phoneMaxMs\":\(latencies.last ?? 0)",
                "\"rssMaxMiB\":\(mebibytes(rss))", "\"rssPeakMiB\":\(peak.map { "\(mebibytes($0))" } ?? "null")",
            ]
            return "{" + fields.joined(separator: ",") + "}"
        }
        var parts = [
            "\(Self.tenths(elapsed)) s",
            "idle: \(counts.idleOpened) opened, \(counts.idleClosed) closed by alarm-web",
            "1 MiB headers: \(counts.headers)", "512 MiB bodies: \(counts.bodies) started, \(counts.bodyBytes >> 20) MiB sent",
            "slow: \(counts.slowOpened) opened", "answers: \(statuses.joined(separator: ", "))",
            "connect failures: \(counts.connectFailures)",
        ]
        if cookie != nil {
            parts.append(
                "phone: \(latencies.count) requests (\(phone.joined(separator: ", "))), median \(Self.tenths(percentile(0.5))) ms, "
                    + "p95 \(Self.tenths(percentile(0.95))) ms, max \(Self.tenths(latencies.last ?? 0)) ms")
        }
        if pid != nil {
            parts.append("alarm-web RSS max \(Self.tenths(mebibytes(rss))) MiB, peak \(peak.map { Self.tenths(mebibytes($0)) } ?? "?") MiB")
        }
        return "alarm-web-flood: " + parts.joined(separator: "; ")
    }

    static func tenths(_ value: Double) -> String {
        let scaled = Int((value * 10).rounded())
        return "\(scaled / 10).\(scaled % 10)"
    }

    /// A `/proc/PID/status` figure in KiB (`VmRSS:`, `VmHWM:`).
    static func memory(of pid: Int32, field: String) -> Int? {
        guard let file = fopen("/proc/\(pid)/status", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix(field) { return Int(text.dropFirst(field.count).filter(\.isNumber)) }
        }
        return nil
    }
}

/// Seconds on `CLOCK_MONOTONIC`.
func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Raises the soft limit on open files to the hard one: the flood holds thousands.
func raiseOpenFileLimit() {
    var limit = rlimit()
    getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
}
