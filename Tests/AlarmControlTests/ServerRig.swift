import AlarmKitCore
import AlarmModel
import AlarmSimulator
import AlarmTestKit
import AlarmTime
import Dispatch
import FoundationEssentials
import Glibc
import LinuxSupport
import Logging
import Synchronization
import Testing

@testable import AlarmClient
@testable import AlarmControl
@testable import AlarmProtocol
@testable import AlarmEngine

/// A real ``AlarmRuntime`` (store in a temporary directory, manual clock, UTC) behind a real
/// ``ControlServer`` on a Unix socket in that directory.
///
/// The directory is searchable by everyone and the socket's group is `nogroup` (65534), so a
/// connection made as another user (``otherUser``) can reach it, as on the device.
final class ServerRig: Sendable {
    static let otherUser: (uid: UInt32, gid: UInt32) = (65534, 65534)
    static let start = Date(timeIntervalSince1970: 1_795_000_000)
    static let logger = Logger(label: "control-test", factory: { _ in SwiftLogNoOpLogHandler() })

    let directory: TemporaryDirectory
    let clock: ManualWallClock
    /// The server's own clock, for its idle timeout: tests that move the engine's clock by
    /// hours must not time out the connections they use.
    let serverClock: ManualWallClock
    let zones = ManualTimeZoneProvider(.utc)
    let authorizer: any AuthorizationPrompter
    let configuration: ControlServer.Configuration
    /// Everything the server logged.
    let log = CapturedLog()
    private let current: Mutex<(runtime: AlarmRuntime, server: ControlServer)>

    var storeDirectory: String { directory.path + "/state" }
    var socketPath: String { configuration.socketPath }
    var runtime: AlarmRuntime { current.withLock { $0.runtime } }
    var server: ControlServer { current.withLock { $0.server } }

    init(
        authorizer: any AuthorizationPrompter = FixedAuthorization(.authorized),
        configure: (inout ControlServer.Configuration) -> Void = { _ in }
    ) throws {
        directory = try TemporaryDirectory()
        // Searchable by the other user, who must reach the socket; mkdtemp made it 0700.
        chmod(directory.path, 0o711)
        mkdir(directory.path + "/run", 0o755)
        clock = ManualWallClock(now: Self.start)
        serverClock = ManualWallClock(now: Self.start)
        self.authorizer = authorizer
        var configuration = ControlServer.Configuration(
            socketPath: directory.path + "/run/control.sock", socketGroupID: getuid() == 0 ? Self.otherUser.gid : nil)
        configuration.serverVersion = "test"
        configure(&configuration)
        self.configuration = configuration
        let runtime = try Self.makeRuntime(store: directory.path + "/state", clock: clock, zones: zones, authorizer: authorizer)
        current = Mutex((runtime, Self.makeServer(configuration, runtime, clock: serverClock, logger: log.logger)))
    }

    static func makeRuntime(
        store: String, clock: ManualWallClock, zones: ManualTimeZoneProvider, authorizer: any AuthorizationPrompter
    ) throws -> AlarmRuntime {
        try AlarmRuntime(
            configuration: .init(clockTrust: .always, storeDirectory: store), clock: clock, timeZones: zones,
            authorizer: authorizer, logger: logger)
    }

    static func makeServer(
        _ configuration: ControlServer.Configuration, _ runtime: AlarmRuntime, clock: ManualWallClock,
        logger: Logger = ServerRig.logger
    ) -> ControlServer {
        var handlers = ControlHandlers()
        // The caller's records, as alarmd's `alarmRecords` answers: a long list.
        handlers.register(.alarmRecords) { call, _ in await runtime.allRecords().filter { $0.owner == call.peer.client } }
        return ControlServer(configuration: configuration, runtime: runtime, handlers: handlers, logger: logger, clock: clock)
    }

    /// Moves the server's clock and has the server look at it.
    func advanceServerClock(by seconds: TimeInterval) {
        serverClock.advance(by: seconds)
        server.wake()
    }

    /// Runs `body` with the server listening, then stops it.
    func serving(_ body: () async throws -> Void) async throws {
        try server.start()
        do {
            try await body()
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// The daemon restarts: a new runtime loads the same store, a new server takes the same path.
    func restart() async throws {
        await server.stop()
        let runtime = try Self.makeRuntime(store: storeDirectory, clock: clock, zones: zones, authorizer: authorizer)
        let server = Self.makeServer(configuration, runtime, clock: serverClock, logger: log.logger)
        current.withLock { $0 = (runtime, server) }
    }

    /// Every file of the store with its bytes.
    func storeFiles() -> [String: [UInt8]] {
        Dictionary(uniqueKeysWithValues: TestFiles.names(in: storeDirectory).map { ($0, TestFiles.read(storeDirectory + "/" + $0) ?? []) })
    }

    /// A client connecting as this process, or as another user, naming itself `app` in `hello`.
    func client(as user: (uid: UInt32, gid: UInt32)? = nil, app: String? = nil) -> ControlClient {
        let connector: ControlClient.Connector = user.map {
            .unixSocket(path: socketPath, actingAsUID: $0.uid, gid: $0.gid)
        } ?? .unixSocket(path: socketPath)
        return ControlClient(connector: connector, app: app, reconnectBackoff: .milliseconds(10)...(.milliseconds(100)))
    }

    /// A raw connection for sending arbitrary bytes.
    /// - Parameter firstLine: written on the connecting thread right after the connect, so that a
    ///   short idle timeout cannot run out before it however long the test waits for a thread.
    func rawConnection(as user: (uid: UInt32, gid: UInt32)? = nil, sending firstLine: [UInt8]? = nil) async throws -> RawConnection {
        let path = socketPath
        let opened = await DetachedThread.run { () -> Result<Int32, ControlSocketError> in
            do throws(ControlSocketError) {
                let fd: Int32
                if let user {
                    fd = try UnixSocket.connect(to: path, uid: user.uid, gid: user.gid)
                } else {
                    fd = try UnixSocket.connect(to: path)
                }
                if let firstLine { _ = firstLine.withUnsafeBytes { UnixSocket.send(fd, $0) } }
                return .success(fd)
            } catch {
                return .failure(error)
            }
        }
        return RawConnection(fd: try opened.get())
    }
}

/// Answers every prompt only when the test releases it, and counts the prompts.
final class GatedPrompter: AuthorizationPrompter {
    private struct State {
        var asked = 0
        var decision: AlarmManager.AuthorizationState?
        var waiting: [CheckedContinuation<AlarmManager.AuthorizationState, Never>] = []
        var askedWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func requestAuthorization(for client: ClientID) async -> AlarmManager.AuthorizationState {
        await withCheckedContinuation { continuation in
            let (decision, waiters) = state.withLock { state in
                state.asked += 1
                if state.decision == nil { state.waiting.append(continuation) }
                defer { state.askedWaiters = [] }
                return (state.decision, state.askedWaiters)
            }
            waiters.forEach { $0.resume() }
            if let decision { continuation.resume(returning: decision) }
        }
    }

    /// Suspends until somebody is being asked, or the test is cancelled (its time limit): a
    /// request that never reaches the prompter then fails the test instead of hanging the run.
    func waitUntilAsked() async {
        _ = await unlessCancelled { await self.waitUntilAskedIgnoringCancellation() }
    }

    private func waitUntilAskedIgnoringCancellation() async {
        await withCheckedContinuation { continuation in
            let asked = state.withLock { state in
                if state.asked == 0 { state.askedWaiters.append(continuation) }
                return state.asked > 0
            }
            if asked { continuation.resume() }
        }
    }

    var timesAsked: Int { state.withLock { $0.asked } }

    /// Answers every pending and later prompt with `decision`.
    func answer(_ decision: AlarmManager.AuthorizationState) {
        let waiting = state.withLock { state in
            state.decision = decision
            defer { state.waiting = [] }
            return state.waiting
        }
        waiting.forEach { $0.resume(returning: decision) }
    }
}

/// A log handler that keeps every record, for checking what the server logs; it can also hold
/// the thread that logs a given message, to stop the server's I/O thread at a known point.
final class CapturedLog: Sendable {
    struct Record: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    private struct Hold {
        var message: String?
        var isHolding = false
        var heldWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let records = Mutex<[Record]>([])
    private let hold = Mutex(Hold())
    private let release = DispatchSemaphore(value: 0)

    /// The next record with `message` blocks the thread logging it until ``releaseHold()``.
    func hold(at message: String) {
        hold.withLock { $0.message = message }
    }

    /// Suspends until a thread is held (see ``hold(at:)``).
    func held() async {
        await withCheckedContinuation { continuation in
            let isHolding = hold.withLock { hold in
                if !hold.isHolding { hold.heldWaiters.append(continuation) }
                return hold.isHolding
            }
            if isHolding { continuation.resume() }
        }
    }

    /// Lets the held thread go on.
    func releaseHold() {
        release.signal()
    }

    /// Called on the logging thread: blocks it if `message` is the one to hold at.
    private func holdIfAsked(_ message: String) {
        let waiters: [CheckedContinuation<Void, Never>]? = hold.withLock { hold in
            guard hold.message == message else { return nil }
            hold.message = nil
            hold.isHolding = true
            defer { hold.heldWaiters = [] }
            return hold.heldWaiters
        }
        guard let waiters else { return }
        waiters.forEach { $0.resume() }
        release.wait()
        hold.withLock { $0.isHolding = false }
    }

    var entries: [Record] { records.withLock { $0 } }

    var logger: Logger {
        var logger = Logger(label: "control-test") { _ in Handler(log: self) }
        logger.logLevel = .trace
        return logger
    }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let record = Record(
                level: event.level, message: "\(event.message)",
                metadata: (event.metadata ?? [:]).mapValues { "\($0)" })
            log.records.withLock { $0.append(record) }
            log.holdIfAsked(record.message)
        }
    }
}

/// Test values.
enum Sample {
    static func definition(_ title: String = "Wake up", at date: Date = ServerRig.start.addingTimeInterval(3600)) -> AlarmDefinition {
        AlarmDefinition(
            schedule: .fixed(date), countdownDuration: .init(preAlert: nil, postAlert: 540),
            presentation: AlarmPresentation(alert: .init(title: title, secondaryButton: .snooze, secondaryButtonBehavior: .countdown)))
    }

    /// An alarm with the most metadata accepted: its record is about 22 KB of JSON.
    static func bulky() -> AlarmDefinition {
        var definition = definition()
        definition.metadata = Data(repeating: UInt8(ascii: "a"), count: AlarmDefinition.maximumMetadataSize)
        return definition
    }

    static func timer(_ seconds: TimeInterval = 300) -> AlarmDefinition {
        AlarmDefinition(
            schedule: nil, countdownDuration: .init(preAlert: seconds, postAlert: seconds),
            presentation: AlarmPresentation(alert: .init(title: "Tea"), countdown: .init(title: "Tea", pauseButton: .pause)))
    }

    /// A request line as a client sends it.
    static func request(_ id: Int64, _ operation: String, _ parameters: [String: JSONValue] = [:]) -> [UInt8] {
        ControlProtocol.line(RequestMessage(id: id, op: operation, params: parameters)) ?? []
    }

    static func scheduleRequest(_ id: Int64, alarm: Alarm.ID, _ definition: AlarmDefinition = definition()) -> [UInt8] {
        ControlProtocol.line(RequestMessage(id: id, op: "schedule", params: ScheduleParameters(id: alarm, definition: definition))) ?? []
    }
}

extension AsyncIteratorProtocol where Failure == Never {
    /// The next element of a sequence that cannot fail.
    mutating func nextElement() async -> Element? {
        await next(isolation: nil)
    }
}
