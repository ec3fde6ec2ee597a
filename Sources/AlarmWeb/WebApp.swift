import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmTime
import FoundationEssentials
import Logging
import Synchronization
import WebPairings

/// The clock's page: its files, and the JSON API the page uses, for paired browsers only.
///
/// Every `/api/` route but pairing refuses a browser without a valid `alarm_session` cookie
/// (401), and every request that changes something must come from the page's own origin (its
/// `Origin` names the host the request was sent to) with a JSON body: a page on another site
/// cannot drive the clock through a browser that is paired.
public final class WebApp: Sendable {
    public struct Configuration: Sendable {
        /// The page's files (`index.html`, `app.js`, `app.css`).
        public var staticDirectory: String
        /// Where `pairings.json` is kept.
        public var stateDirectory: String
        /// Adds `Secure` to the cookies: set it when the page is reached over TLS.
        public var secureCookies = false

        public init(staticDirectory: String, stateDirectory: String, secureCookies: Bool = false) {
            self.staticDirectory = staticDirectory
            self.stateDirectory = stateDirectory
            self.secureCookies = secureCookies
        }
    }

    static let sessionCookie = "alarm_session"
    static let ticketCookie = "alarm_pairing"
    /// The largest request body accepted: an alarm is a few hundred bytes. The server refuses a
    /// longer one before reading it (``HTTPLimits/maximumBody``).
    static let maximumBody = 16 * 1024
    /// How long `POST /api/pair/wait` holds a request before answering "still waiting".
    static let pairingPoll: Duration = .seconds(20)

    let configuration: Configuration
    let link: DeviceLink
    let book: PairingBook
    let desk = PairingDesk()
    let logger: Logger
    let clock: @Sendable () -> Date
    let zones: any TimeZoneProvider
    let hub: StateHub
    private let stateReads = Mutex<Task<PageState, any Error>?>(nil)
    private let publishing = Mutex((running: false, again: false))

    public init(
        configuration: Configuration, link: DeviceLink, logger: Logger,
        zones: any TimeZoneProvider = SystemTimeZoneProvider(), clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.link = link
        self.logger = logger
        self.clock = clock
        self.zones = zones
        book = PairingBook(directory: configuration.stateDirectory, logger: logger)
        hub = StateHub()
    }

    /// Follows the device's changes for the open event streams, until cancelled.
    public func run() async {
        for await _ in link.changes() {
            await publishState()
        }
    }

    public func respond(to request: WebRequest) async -> WebResponse {
        do {
            return try await route(request)
        } catch let error as WebError {
            return error.response
        } catch let error as AlarmOperationError {
            return .error(Self.status(of: error), "\(error)")
        } catch let error as ControlError {
            return .error(Self.status(of: error), error.message)
        } catch {
            return .error(503, "the alarm clock did not answer: \(error)")
        }
    }

    private func route(_ request: WebRequest) async throws -> WebResponse {
        let path = request.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? "/"
        guard path.hasPrefix("/api/") else { return try staticFile(path, method: request.method) }
        let changes = request.method != "GET" && request.method != "HEAD"
        if changes { try checkSameOrigin(request) }
        let parts = path.split(separator: "/").dropFirst().map(String.init)
        let padded = parts + Array(repeating: "", count: Swift.max(0, 3 - parts.count))
        let route = (request.method, parts.count, padded[0], padded[1], padded[2])
        switch route {
        case ("POST", 1, "pair", _, _):
            return try await startPairing(request)
        case ("POST", 2, "pair", "wait", _):
            return try await waitForPairing(request)
        default:
            break
        }
        let pairing = try session(request)
        switch route {
        case ("GET", 1, "state", _, _):
            return .json(200, try await state(for: pairing))
        case ("GET", 1, "events", _, _):
            return events(for: pairing)
        case ("POST", 1, "alarms", _, _):
            return try await saveAlarm(request.body, editing: nil)
        case ("PUT", 2, "alarms", let id, _):
            return try await saveAlarm(request.body, editing: try alarmID(id))
        case ("DELETE", 2, "alarms", let id, _), ("DELETE", 2, "timers", let id, _):
            try await link.perform(.command(.cancel), id: try alarmID(id))
            return .json(200, ["ok": true])
        case ("POST", 3, "alarms", let id, "stop"), ("POST", 3, "timers", let id, "stop"):
            try await buttonPressed(.stop, on: try alarmID(id))
            return .json(200, ["ok": true])
        case ("POST", 3, "alarms", let id, "snooze"):
            try await buttonPressed(.countdown, on: try alarmID(id))
            return .json(200, ["ok": true])
        case ("POST", 3, "alarms", let id, let action), ("POST", 3, "timers", let id, let action):
            guard let operation = Self.actions[action] else { throw WebError(404, "no such action: \(action)") }
            try await link.perform(operation, id: try alarmID(id))
            return .json(200, ["ok": true])
        case ("POST", 1, "timers", _, _):
            let id = UUID()
            try await link.schedule(id: id, definition: try TimerForm.decode(request.body).timer())
            return .json(201, ["id": id.uuidString])
        default:
            return try await routeDevice(route, request, path: path)
        }
    }

    /// The household's routes: settings, the clock's time, the paired phones.
    private func routeDevice(
        _ route: (String, Int, String, String, String), _ request: WebRequest, path: String
    ) async throws -> WebResponse {
        switch route {
        case ("PUT", 1, "settings", _, _):
            try await link.setSettings(try SettingsForm.decode(request.body))
            await publishState()
            return .json(200, ["ok": true])
        case ("POST", 2, "settings", "try", _):
            try await link.trySound(volumeDB: try SettingsForm.decode(request.body).volumeDB)
            return .json(200, ["ok": true])
        case ("POST", 1, "time", _, _):
            let report = try await link.setTime(Date(timeIntervalSince1970: try TimeForm.decode(request.body).time))
            await publishState()
            return .json(200, ["timeSource": report.timeSource?.rawValue ?? ""])
        case ("DELETE", 2, "pairings", let id, _):
            guard try book.revoke(id: id) else { throw WebError(404, "no paired browser \(id)") }
            await publishState()
            return .json(200, ["ok": true])
        case (_, _, "sounds", _, _):
            return try await routeSounds(route, request, path: path)
        default:
            throw WebError(404, "no such route: \(request.method) \(path)")
        }
    }

    /// The page's action names and the protocol's operations, on the page's own alarms.
    static let actions: [String: ControlEndpoint<AlarmIDParameters, NullAnswer>] = [
        "pause": .command(.pause), "resume": .command(.resume), "enable": .command(.enable), "disable": .command(.disable),
        "skip": .command(.skip),
    ]

    /// Adds an alarm of the page's own, or gives the one it is `editing` the form's definition in
    /// place, under the same id (an app or a script holding the id keeps it): one step at alarmd,
    /// so there is never a moment with neither the old nor the new alarm, and a refusal leaves the
    /// old one. An alarm that is not there (or not the page's) is 404; one ringing is 409 (stop or
    /// snooze it first). Then how it wakes: the form's fade-in and volume, or the household's.
    private func saveAlarm(_ body: Data, editing: UUID?) async throws -> WebResponse {
        let form = try AlarmForm.decode(body)
        let scale = form.volumePercent == nil ? AlarmWake.volumeRange : try await link.settings().volumeScale
        let (definition, wake) = (try form.alarm(), try form.wake(scale: scale))
        guard let id = editing else {
            let id = UUID()
            try await link.schedule(id: id, definition: definition)
            if !wake.isHouseholdDefault { try await link.setWake(wake, id: id) }
            return .json(201, ["id": id.uuidString])
        }
        try await link.replace(id: id, definition: definition)
        try await link.setWake(wake, id: id)
        return .json(200, ["id": id.uuidString])
    }

    /// Stop and Snooze act as the clock's buttons do, on whoever's alarm it is. Ids are each
    /// client's own: of several alarms with this id, the one ringing that the clock presents first
    /// (the one the page showed), else the first.
    private func buttonPressed(_ action: AlarmAction, on id: UUID) async throws {
        let records = try await link.records(id: id, all: true)
        guard let record = AlertPresentationOrder.alerting(records).first ?? records.first else { throw WebError(404, "no alarm \(id)") }
        try await link.deviceAction(action, id: id, owner: record.owner.rawValue)
    }

    private func alarmID(_ text: String) throws -> UUID {
        guard let id = UUID(uuidString: text) else { throw WebError(404, "no alarm \(text)") }
        return id
    }

    // MARK: - Checks

    /// The pairing of the browser that sent `request`, or 401.
    func session(_ request: WebRequest) throws -> Pairing {
        guard let token = request.cookie(Self.sessionCookie), let pairing = book.pairing(token: token, at: clock()) else {
            throw WebError(401, "this browser is not paired with the clock", pairing: true)
        }
        return pairing
    }

    /// Refuses a change whose `Origin` is not the host it was sent to, and a body that is not JSON.
    private func checkSameOrigin(_ request: WebRequest) throws {
        guard let origin = request.headers["origin"], let host = request.headers["host"],
              origin == "http://" + host || origin == "https://" + host
        else {
            throw WebError(403, "cross-origin request refused: changes must come from the clock's own page")
        }
        let limit = bodyLimit(for: request)
        guard request.body.count <= limit else { throw WebError(413, "request body larger than \(limit) bytes") }
        if !request.body.isEmpty {
            let type = request.headers["content-type"]?.split(separator: ";").first?.trimmingASCIIWhitespace().lowercased()
            if Self.isSoundUpload(request) {
                // Not a type a form can send: a page elsewhere cannot post one without CORS's consent.
                guard type == "application/octet-stream" else {
                    throw WebError(415, "a sound's bytes are sent as Content-Type: application/octet-stream")
                }
            } else {
                guard type == "application/json" else { throw WebError(415, "the body must be JSON (Content-Type: application/json)") }
            }
        }
    }

    // MARK: - Pairing

    private struct PairRequest: Decodable {
        var name: String
    }

    private func startPairing(_ request: WebRequest) async throws -> WebResponse {
        let name: String
        do {
            name = try WebJSON.decode(PairRequest.self, from: request.body).name.trimmingWhitespace()
        } catch {
            throw WebError(400, "expected {\"name\": \"a name for this phone\"}")
        }
        guard (1...32).contains(name.count), !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw WebError(400, "the phone's name must be 1 to 32 characters")
        }
        let question: PairingDesk.Question
        do {
            question = try await desk.open(name: name, from: request.peer, now: clock()) { [link, book, clock] name, code in
                switch await link.askToPair(name: name, code: code) {
                case .allowed:
                    do {
                        return .allowed(try book.add(name: name, at: clock()))
                    } catch {
                        return .failed("the pairing could not be saved: \(error)")
                    }
                case .refused: return .refused
                case .unanswered: return .unanswered
                case .withdrawn: return .withdrawn
                case .tooSoon(let retryAfter): return .tooSoon(retryAfter: retryAfter)
                case .failed(let reason): return .failed(reason)
                }
            }
        } catch .busy {
            throw WebError(409, "the clock is asking about another phone; try again in a minute")
        } catch .tooMany(let retryAfter) {
            throw WebError(429, "too many attempts; try again in \(Int((retryAfter / 60).rounded(.up))) minutes")
        }
        logger.info("Pairing asked at the clock", metadata: ["name": "\(name)"])
        return WebResponse.json(201, ["code": question.code, "expires": ISO8601.format(question.expires, in: .utc)])
            .setting(cookie: cookie(Self.ticketCookie, question.ticket, path: "/api/pair", maxAge: Int(PairingDesk.questionLifetime)))
    }

    private func waitForPairing(_ request: WebRequest) async throws -> WebResponse {
        guard let ticket = request.cookie(Self.ticketCookie) else { throw WebError(409, "no pairing was asked from this browser") }
        switch await desk.outcome(ticket: ticket, waitingUpTo: Self.pairingPoll, now: clock) {
        case .unknownTicket:
            throw WebError(409, "no pairing was asked from this browser, or it is over; ask again")
        case .waiting:
            return .json(202, ["waiting": true])
        case .decided(.allowed(let pairing)):
            await publishState()
            return WebResponse.json(200, ["paired": true])
                .setting(cookie: cookie(Self.sessionCookie, pairing.token, path: "/", maxAge: 400 * 86_400))
                .setting(cookie: cookie(Self.ticketCookie, "", path: "/api/pair", maxAge: 0))
        case .decided(.refused):
            throw WebError(403, "refused at the clock")
        case .decided(.unanswered):
            throw WebError(410, "nobody answered at the clock in time")
        case .decided(.withdrawn):
            throw WebError(409, "an alarm rang at the clock before anyone answered; ask again")
        case .decided(.tooSoon(let retryAfter)):
            throw WebError(429, "the clock asked about a phone less than a minute ago; try again in \(retryAfter) seconds")
        case .decided(.failed(let reason)):
            throw WebError(503, "the clock could not ask: \(reason)")
        }
    }

    private func cookie(_ name: String, _ value: String, path: String, maxAge: Int) -> String {
        "\(name)=\(value); Path=\(path); Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (configuration.secureCookies ? "; Secure" : "")
    }

    // MARK: - State

    private func state(for pairing: Pairing) async throws -> PageState {
        var state = try await currentState()
        state.show(book.all, to: pairing.id)
        return state
    }

    /// The state as alarmd has it now. Requests that arrive while one is being read share it:
    /// two hundred phones polling cost alarmd one read at a time, and leave the socket's
    /// requests in flight for Stop.
    func currentState() async throws -> PageState {
        let reading = stateReads.withLock { current -> Task<PageState, any Error> in
            if let current { return current }
            let task = Task { [self] in
                defer { stateReads.withLock { $0 = nil } }
                return try await readState()
            }
            current = task
            return task
        }
        return try await reading.value
    }

    private func readState() async throws -> PageState {
        async let records = link.records()
        async let status = link.status()
        async let history = link.history()
        async let settings = link.settings()
        async let sounds = link.soundFiles()
        let uid = try await link.ownUID()
        let zone = (try? zones.currentZone()) ?? .utc
        let report = try await settings
        var state = PageState(
            records: try await records, status: await status, history: try await history, ownUID: uid, zone: zone, now: clock(),
            volumeScale: report.volumeScale)
        state.settings = report
        state.clock24h = state.settings?.clock24h ?? true
        state.soundFiles = try await sounds
        state.sounds = state.soundFiles.map(\.name)
        return state
    }

    /// Reads the state after a change and sends it to every open event stream. Changes that come
    /// while it reads are covered by one more read; a read that fails is tried again (alarmd
    /// restarting), so a stream never stays on an old state.
    func publishState() async {
        let starts = publishing.withLock { publishing -> Bool in
            if publishing.running { publishing.again = true }
            defer { publishing.running = true }
            return !publishing.running
        }
        guard starts else { return }
        var failures = 0
        repeat {
            publishing.withLock { $0.again = false }
            do {
                hub.publish(try await readState())
                failures = 0
            } catch {
                failures += 1
                if failures == 1 { logger.warning("Cannot read the clock's state for the page; trying again", metadata: ["error": "\(error)"]) }
                if failures < 30 {
                    let wall = SystemWallClock()
                    _ = try? await wall.sleep(until: wall.now.addingTimeInterval(2))
                    publishing.withLock { $0.again = true }
                }
            }
        } while publishing.withLock { publishing in
            if publishing.again { return true }
            publishing.running = false
            return false
        }
    }

    private func events(for pairing: Pairing) -> WebResponse {
        let (stream, continuation) = AsyncStream.makeStream(of: Data.self, bufferingPolicy: .bufferingNewest(4))
        let subscription = hub.subscribe { [book] state in
            let pairings = book.all
            guard pairings.contains(where: { $0.id == pairing.id }) else {
                // Revoked: the stream ends, and the page's next request learns why.
                continuation.finish()
                return
            }
            var state = state
            state.show(pairings, to: pairing.id)
            guard let json = try? JSONEncoder.web.encode(state) else { return }
            continuation.yield(Data("event: state\ndata: ".utf8) + json + Data("\n\n".utf8))
        }
        continuation.onTermination = { [hub] _ in hub.unsubscribe(subscription) }
        Task { await publishState() }
        return WebResponse(
            status: 200,
            headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"), ("X-Accel-Buffering", "no")],
            events: stream)
    }
}
