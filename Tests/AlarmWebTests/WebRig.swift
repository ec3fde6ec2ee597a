import AlarmAppliance
import AlarmControl
import AlarmDaemon
import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmProtocol
import AlarmSimulator
import AlarmTestKit
import AlarmTime
import Foundation
import Logging
import Testing

@testable import AlarmWeb

/// The phone page against a real engine and control server, with the appliance on fakes
/// answering the pairing questions: `holdBoth()` is the person at the clock saying yes.
final class WebRig: Sendable {
    static let start = Date(timeIntervalSince1970: 1_795_000_000)
    static let logger = Logger(label: "web-test", factory: { _ in SwiftLogNoOpLogHandler() })
    static let origin = "http://clock.local:8080"

    let directory: TemporaryDirectory
    let clock = ManualWallClock(now: WebRig.start)
    let runtime: AlarmRuntime
    let appliance: Appliance
    let display = FakeCharacterDisplay(size: .sixteenByTwo)
    let audio = FakeAudioOutput()
    let server: ControlServer
    let link: DeviceLink
    let app: WebApp

    init() async throws {
        directory = try TemporaryDirectory()
        runtime = try AlarmRuntime(
            configuration: .init(clockTrust: .always, storeDirectory: directory.path + "/engine"), clock: clock,
            timeZones: ManualTimeZoneProvider(.utc), authorizer: FixedAuthorization(.authorized), logger: Self.logger)
        appliance = Appliance(
            runtime: runtime,
            hardware: ApplianceHardware(
                buttons: FakeButtonInput(clock: clock), indicator: FakeIndicator(hasColor: false), audio: audio,
                display: display),
            clock: clock, logger: Self.logger)
        await appliance.start()
        server = ControlServer(
            configuration: .init(socketPath: directory.path + "/control.sock"), runtime: runtime,
            handlers: DaemonOperations.handlers(
                runtime: runtime, appliance: appliance,
                settings: HouseholdSettingsFile(
                    directory: directory.path, defaults: HouseholdSettings(DaemonConfiguration()), logger: Self.logger),
                sounds: SoundLibrary(
                    packagedDirectory: directory.path + "/sounds", householdDirectory: directory.path + "/household-sounds",
                    reservedFreeBytes: 0, logger: Self.logger
                ) { [appliance] names, generation in await appliance.householdSoundsChanged(names, generation: generation) },
                status: nil, board: nil),
            logger: Self.logger, clock: clock)
        try server.start()
        link = DeviceLink(socketPath: directory.path + "/control.sock")
        mkdir(directory.path + "/web", 0o700)
        app = WebApp(
            configuration: .init(staticDirectory: RepositoryFiles.root + "/web", stateDirectory: directory.path + "/web"),
            link: link, logger: Self.logger, zones: ManualTimeZoneProvider(.utc), clock: { [clock] in clock.now })
    }

    func stop() async {
        link.close()
        await server.stop()
    }

    /// A request as a browser on the page sends it: same origin, JSON, with `cookies`, from
    /// `peer` (the address of its TCP connection).
    func request(
        _ method: String, _ path: String, json: String? = nil, cookies: [String: String] = [:], origin: String? = WebRig.origin,
        peer: String = WebRig.phone
    ) async -> WebResponse {
        var headers = ["Host": "clock.local:8080"]
        if let origin { headers["Origin"] = origin }
        if json != nil { headers["Content-Type"] = "application/json" }
        if !cookies.isEmpty { headers["Cookie"] = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
        return await app.respond(to: WebRequest(method: method, path: path, headers: headers, body: Data((json ?? "").utf8), peer: peer))
    }

    /// The address the rig's requests come from unless a test says otherwise.
    static let phone = "192.0.2.10"

    /// Pairs a browser: it asks, the display shows the question, STOP and SNOOZE held together
    /// allow. Returns its cookies.
    func pair(name: String = "Alice's phone", peer: String = WebRig.phone) async throws -> [String: String] {
        let (ticket, _) = try await ask(name: name, peer: peer)
        await holdBoth()
        let collected = await request("POST", "/api/pair/wait", cookies: ticket, peer: peer)
        #expect(collected.status == 200)
        return try #require(Self.cookies(collected)).filter { !$0.value.isEmpty }
    }

    /// Asks to pair and waits until the display shows the question; the ticket cookie and the code.
    /// The clock asks about a phone at most once a minute: the minute is let pass first.
    func ask(name: String, peer: String = WebRig.phone) async throws -> (ticket: [String: String], code: String) {
        clock.advance(by: 60)
        let asked = await request("POST", "/api/pair", json: #"{"name":"\#(name)"}"#, peer: peer)
        try #require(asked.status == 201, "\(String(decoding: asked.body, as: UTF8.self))")
        let code = try #require(try JSONDecoder().decode([String: String].self, from: asked.body)["code"])
        await waitForPairingQuestion()
        return (try #require(Self.cookies(asked)), code)
    }

    /// Waits until the clock's display shows a pairing question.
    func waitForPairingQuestion() async {
        var frames = display.events().makeAsyncIterator()
        while !display.lines.joined().contains("Pair phone") {
            guard await frames.next() != nil else { break }
        }
    }

    /// The person at the clock presses `button` briefly.
    func answer(_ button: Button) async {
        await appliance.handle(ButtonEvent(button, .pressed, at: clock.monotonicNow))
        clock.advance(by: 0.15)
        await appliance.handle(ButtonEvent(button, .released, at: clock.monotonicNow))
        clock.advance(by: 0.1)
        await appliance.refresh()
    }

    /// The person at the clock holds STOP and SNOOZE together past the long-press time: yes.
    func holdBoth() async {
        await appliance.handle(ButtonEvent(.stop, .pressed, at: clock.monotonicNow))
        await appliance.handle(ButtonEvent(.snooze, .pressed, at: clock.monotonicNow))
        clock.advance(by: 2.1)
        await appliance.refresh()
        await appliance.handle(ButtonEvent(.snooze, .released, at: clock.monotonicNow))
        await appliance.handle(ButtonEvent(.stop, .released, at: clock.monotonicNow))
        clock.advance(by: 0.1)
        await appliance.refresh()
    }

    /// Serves the page over TCP on 127.0.0.1 (a free port), its deadlines on the rig's clock.
    func serve(maximumConnections: Int = 512, hosts: [String] = [], timeouts: HTTPTimeouts = HTTPTimeouts()) throws -> ServedPage {
        var configuration = WebServer.Configuration(
            listen: "127.0.0.1:0", hosts: try ClockHostNames(configured: hosts, hostname: "clock"), maximumConnections: maximumConnections)
        configuration.timeouts = timeouts
        let server = try WebServer(app: app, configuration: configuration, logger: Self.logger, clock: clock)
        return ServedPage(server: server)
    }

    static func cookies(_ response: WebResponse) -> [String: String]? {
        var cookies: [String: String] = [:]
        for (name, value) in response.headers where name == "Set-Cookie" {
            let pair = value.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            cookies[String(pair[0])] = pair.count > 1 ? String(pair[1]) : ""
        }
        return cookies.isEmpty ? nil : cookies
    }

    static func json(_ response: WebResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    }
}

/// Where the repository's files are (the page's, for the static routes).
enum RepositoryFiles {
    static let root: String = {
        var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(3)  // Tests/AlarmWebTests/WebRig.swift
        return components.joined(separator: "/")
    }()
}

/// A ``WebServer`` running for a test, until ``stop()``.
final class ServedPage: Sendable {
    let server: WebServer
    let port: UInt16
    let running: Task<Void, any Error>

    init(server: WebServer) {
        self.server = server
        port = server.port ?? 0
        running = Task { try await server.run() }
    }

    /// Stops the server and waits until it has.
    func stop() async {
        running.cancel()
        _ = await running.result
    }
}
