import AlarmWeb
import ArgumentParser
import BuildVersion
import FoundationEssentials
import Glibc
import JournalLogging
import LinuxSupport
import Logging
import UnixSignals

/// `alarm-web`: the clock's page for phones on the home network, a client of alarmd's socket.
@main
struct AlarmWebCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alarm-web",
        abstract: "Serve the alarm clock's page to phones on the home network.",
        discussion: """
            A browser is let in only after the person at the clock agrees: the page asks, the \
            clock's display shows "Pair phone NAME? Code CODE"; STOP and SNOOZE held together allow, STOP refuses. \
            alarm-web talks to alarmd through its control socket, as an administrator (the \
            alarmd-admin group), so it shows and changes the household's alarms; if it stops, \
            alarms still ring. Plain HTTP: anyone on the network can watch the traffic; put a TLS \
            proxy in front (deploy/README.md) and pass --secure-cookies to keep it private.
            """,
        version: AlarmdVersion.current
    )

    @Option(help: ArgumentHelp("Where to listen: HOST:PORT, [IPV6]:PORT, or :PORT for every address.", valueName: "ADDRESS"))
    var listen = ":8080"

    @Option(help: ArgumentHelp("alarmd's control socket.", valueName: "PATH"))
    var socket = "/run/alarmd/control.sock"

    @Option(name: .customLong("state-dir"), help: ArgumentHelp("Where the paired browsers are kept.", valueName: "DIR"))
    var stateDirectory = "/var/lib/alarm-web"

    @Option(name: .customLong("files"), help: ArgumentHelp("The page's files.", valueName: "DIR"))
    var filesDirectory = "/usr/share/alarmd/web"

    @Option(name: .customLong("host"), help: ArgumentHelp(
        "A name (NAME for any port, NAME:PORT for one) requests may give as Host besides the clock's own: its host name, NAME.local, localhost and its addresses. Repeat for several.",
        valueName: "NAME"))
    var hosts: [String] = []

    @Option(name: .customLong("max-connections"), help: ArgumentHelp(
        "Open connections at most (kept below the file limit); the oldest idle ones are closed to make room.", valueName: "N"))
    var maximumConnections = 512

    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp(
        "How long a connection may wait with no request before it is closed, in seconds.", valueName: "SECONDS"))
    var idleTimeout: Double = 60

    @Option(name: .customLong("request-timeout"), help: ArgumentHelp(
        "How long a request may take to arrive whole (head and body) before it is answered 408, in seconds.", valueName: "SECONDS"))
    var requestTimeout: Double = 10

    @Flag(name: .customLong("secure-cookies"), help: "Mark the cookies Secure: the page is reached over HTTPS through a proxy.")
    var secureCookies = false

    @Option(name: .customLong("log-level"), help: ArgumentHelp("The lowest level logged.", valueName: "LEVEL"))
    var logLevel: Logger.Level = .info

    func run() async throws {
        let logger = Logger.journal("alarm-web", level: logLevel)
        guard access(filesDirectory + "/index.html", R_OK) == 0 else {
            throw ValidationError("no page in \(filesDirectory) (index.html is missing); pass --files DIR")
        }
        guard access(stateDirectory, W_OK) == 0 else {
            throw ValidationError("cannot write to the state directory \(stateDirectory): \(String(cString: strerror(errno)))")
        }
        guard maximumConnections > 0 else { throw ValidationError("--max-connections must be at least 1") }
        for (option, seconds) in [("--idle-timeout", idleTimeout), ("--request-timeout", requestTimeout)]
        where !(seconds.isFinite && seconds >= 1 && seconds <= 86_400) {
            throw ValidationError("\(option) \(seconds) must be between 1 and 86400 seconds")
        }
        let hostNames: ClockHostNames
        do {
            hostNames = try ClockHostNames(configured: hosts)
        } catch {
            throw ValidationError("\(error)")
        }
        let link = DeviceLink(socketPath: socket)
        let app = WebApp(
            configuration: .init(staticDirectory: filesDirectory, stateDirectory: stateDirectory, secureCookies: secureCookies),
            link: link, logger: logger)
        var configuration = WebServer.Configuration(listen: listen, hosts: hostNames, maximumConnections: maximumConnections)
        configuration.timeouts.idle = .milliseconds(Int64(idleTimeout * 1000))
        configuration.timeouts.request = .milliseconds(Int64(requestTimeout * 1000))
        let server = try WebServer(app: app, configuration: configuration, logger: logger)
        // Trapped before serving, so that a stop at any moment from here on ends cleanly.
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        logger.notice("Serving the clock's page", metadata: [
            "listen": "\(listen)", "port": "\(server.port.map(String.init) ?? "?")", "socket": "\(socket)",
            "connections.max": "\(server.capacity)",
        ])
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                let ending: String
                do {
                    try await server.run()
                    ending = "returned"
                } catch {
                    ending = "\(error)"
                }
                guard !Task.isCancelled else { return }
                // Serving is over for good while the process would live on: exit (EX_SOFTWARE),
                // so that systemd (Restart=always) starts a new one.
                logger.critical("The page server stopped; exiting", metadata: ["error": "\(ending)"])
                Glibc.exit(70)
            }
            group.addTask { await app.run() }
            for await _ in signals { break }
            Self.exitAfterGrace()
            group.cancelAll()
        }
        logger.notice("alarm-web stopped")
        link.close()
    }

    /// How long a graceful stop may take before the process ends anyway (a stop must work under
    /// any load; nothing alarm-web holds needs more than this to be left consistent).
    static let stopGrace: Duration = .seconds(2)

    /// Ends the process `stopGrace` from now unless it has ended by then, from a thread of its own.
    static func exitAfterGrace() {
        DetachedThread.start {
            var pause = timespec(tv_sec: Int(stopGrace.components.seconds), tv_nsec: 0)
            var left = timespec()
            while nanosleep(&pause, &left) != 0, errno == EINTR { pause = left }
            _exit(0)
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
