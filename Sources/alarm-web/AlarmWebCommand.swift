import AlarmWeb
import ArgumentParser
import FoundationEssentials
import Glibc
import JournalLogging
import LinuxSupport
import Logging

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
            """
    )

    @Option(help: ArgumentHelp("Where to listen: HOST:PORT, [IPV6]:PORT, or :PORT for every address.", valueName: "ADDRESS"))
    var listen = ":8080"

    @Option(help: ArgumentHelp("alarmd's control socket.", valueName: "PATH"))
    var socket = "/run/alarmd/control.sock"

    @Option(name: .customLong("state-dir"), help: ArgumentHelp("Where the paired browsers are kept.", valueName: "DIR"))
    var stateDirectory = "/var/lib/alarm-web"

    @Option(name: .customLong("files"), help: ArgumentHelp("The page's files.", valueName: "DIR"))
    var filesDirectory = "/usr/share/alarmd/web"

    @Flag(name: .customLong("secure-cookies"), help: "Mark the cookies Secure: the page is reached over HTTPS through a proxy.")
    var secureCookies = false

    @Option(name: .customLong("log-level"), help: ArgumentHelp("The lowest level logged.", valueName: "LEVEL"))
    var logLevel: Logger.Level = .info

    static func main() async {
        // Before any task runs: libdispatch's pool, once used, wakes the process every second.
        ThreadPoolExecutor.installAsGlobalExecutor()
        await main(nil)
    }

    func run() async throws {
        let logger = {
            var logger = Logger(label: "alarm-web", factory: { JournalLogHandler(label: $0, output: .standardError) })
            logger.logLevel = logLevel
            return logger
        }()
        guard access(filesDirectory + "/index.html", R_OK) == 0 else {
            throw ValidationError("no page in \(filesDirectory) (index.html is missing); pass --files DIR")
        }
        guard access(stateDirectory, W_OK) == 0 else {
            throw ValidationError("cannot write to the state directory \(stateDirectory): \(String(cString: strerror(errno)))")
        }
        let link = DeviceLink(socketPath: socket)
        let app = WebApp(
            configuration: .init(staticDirectory: filesDirectory, stateDirectory: stateDirectory, secureCookies: secureCookies),
            link: link, logger: logger)
        let server = try WebServer(app: app, listen: listen, logger: logger)
        let serving: Logger.Metadata = ["listen": "\(listen)", "socket": "\(socket)"]
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            group.addTask { await app.run() }
            group.addTask {
                try await server.waitUntilListening()
                logger.notice("Serving the clock's page", metadata: serving)
            }
            let stopping = Completion()
            try ShutdownSignals.watch([SIGTERM, SIGINT]) { _ in stopping.complete() }
            group.addTask {
                await stopping.wait()
                throw CancellationError()
            }
            do {
                while try await group.next() != nil {}
            } catch is CancellationError {
                logger.notice("alarm-web stopped")
            }
            group.cancelAll()
        }
        link.close()
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
