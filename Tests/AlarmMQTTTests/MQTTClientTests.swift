import AlarmMQTT
import AlarmTestKit
import FoundationEssentials
import Glibc
import LinuxSupport
import Testing

/// The MQTT client against a real Mosquitto broker: messages both ways with their retained flag,
/// a login the broker refuses, and a broker that goes away and comes back.
@Suite(.timeLimit(.minutes(2))) struct MQTTClientTests {
    /// Waits for the first event `matching`, ignoring others.
    static func next(
        _ events: inout AsyncStream<MQTTClient.Event>.Iterator, _ matching: (MQTTClient.Event) -> Bool
    ) async -> MQTTClient.Event? {
        while let event = await events.next() {
            if matching(event) { return event }
        }
        return nil
    }

    static func isConnected(_ event: MQTTClient.Event) -> Bool { event == .connected }

    static func isDisconnected(_ event: MQTTClient.Event) -> Bool {
        if case .disconnected = event { return true }
        return false
    }

    static func client(_ broker: TestBroker, id: String, username: String? = nil, password: String? = nil) throws -> MQTTClient {
        try MQTTClient(.init(host: "127.0.0.1", port: Int(broker.port), clientID: id, username: username, password: password))
    }

    @Test func aMessagePublishedReachesASubscriberAndARetainedOneALaterOne() async throws {
        let broker = try TestBroker()
        try await broker.start()
        let listener = try Self.client(broker, id: "listener")
        try listener.subscribe("clock/#")
        var heard = listener.events().makeAsyncIterator()
        listener.start()
        #expect(await Self.next(&heard, Self.isConnected) == .connected)
        let speaker = try Self.client(broker, id: "speaker")
        var spoken = speaker.events().makeAsyncIterator()
        speaker.start()
        #expect(await Self.next(&spoken, Self.isConnected) == .connected)

        try speaker.publish(.init(topic: "clock/state", payload: "alerting"))
        let live = await Self.next(&heard) { if case .message = $0 { true } else { false } }
        // Live delivery of a retained publish is not flagged retained (MQTT 3.1.1 3.3.1.3).
        #expect(live == .message(.init(topic: "clock/state", payload: "alerting", retained: false)))

        let late = try Self.client(broker, id: "late")
        try late.subscribe("clock/state")
        var lateEvents = late.events().makeAsyncIterator()
        late.start()
        let kept = await Self.next(&lateEvents) { if case .message = $0 { true } else { false } }
        #expect(kept == .message(.init(topic: "clock/state", payload: "alerting", retained: true)))
        for client in [listener, speaker, late] { await client.stop() }
        broker.stop()
    }

    @Test func aGoodbyeIsPublishedAndTheWillIsNot() async throws {
        let broker = try TestBroker()
        try await broker.start()
        let watcher = try Self.client(broker, id: "watcher")
        try watcher.subscribe("clock/availability")
        var seen = watcher.events().makeAsyncIterator()
        watcher.start()
        #expect(await Self.next(&seen, Self.isConnected) == .connected)
        let clock = try MQTTClient(.init(
            host: "127.0.0.1", port: Int(broker.port), clientID: "clock",
            will: .init(topic: "clock/availability", payload: "lost")))
        var clockEvents = clock.events().makeAsyncIterator()
        clock.start()
        #expect(await Self.next(&clockEvents, Self.isConnected) == .connected)
        await clock.stop(farewell: .init(topic: "clock/availability", payload: "offline"))
        let goodbye = await Self.next(&seen) { if case .message = $0 { true } else { false } }
        #expect(goodbye == .message(.init(topic: "clock/availability", payload: "offline", retained: false)))
        await watcher.stop()
        broker.stop()
    }

    @Test func aLoginTheBrokerRefusesIsReportedAndTheRightOneConnects() async throws {
        let passwords = try TemporaryDirectory()
        let file = passwords.path + "/passwords"
        let tool = try #require(TestBroker.program("bin/mosquitto_passwd"), "no mosquitto_passwd: run deploy/install-build-deps")
        let made = try await ChildProcess.run(tool, ["-b", "-c", file, "clock", "s3cret"])
        try #require(made.exitStatus == 0, "mosquitto_passwd: \(made.standardError)")
        chmod(file, 0o600)
        let broker = try TestBroker(settings: "allow_anonymous false\npassword_file \(file)")
        try await broker.start()
        let wrong = try Self.client(broker, id: "wrong", username: "clock", password: "guess")
        var wrongEvents = wrong.events().makeAsyncIterator()
        wrong.start()
        let refused = await Self.next(&wrongEvents, Self.isDisconnected)
        #expect(refused == .disconnected("the broker refused the connection: Connection Refused: not authorised."))
        await wrong.stop()
        let right = try Self.client(broker, id: "right", username: "clock", password: "s3cret")
        var rightEvents = right.events().makeAsyncIterator()
        right.start()
        #expect(await Self.next(&rightEvents, Self.isConnected) == .connected)
        await right.stop()
        broker.stop()
    }

    @Test func aBrokerThatGoesAwayIsConnectedToAgainWhenItIsBack() async throws {
        let broker = try TestBroker()
        try await broker.start()
        let client = try Self.client(broker, id: "clock")
        try client.subscribe("clock/cmd/#")
        var events = client.events().makeAsyncIterator()
        client.start()
        #expect(await Self.next(&events, Self.isConnected) == .connected)
        broker.stop()
        #expect(await Self.next(&events, Self.isDisconnected) != nil)
        #expect(throws: MQTTError.self) { try client.publish(.init(topic: "clock/state", payload: "idle")) }
        try await broker.start()
        #expect(await Self.next(&events, Self.isConnected) == .connected)
        // Subscribed again on the new connection: a command sent now arrives.
        let remote = try Self.client(broker, id: "remote")
        var remoteEvents = remote.events().makeAsyncIterator()
        remote.start()
        #expect(await Self.next(&remoteEvents, Self.isConnected) == .connected)
        try remote.publish(.init(topic: "clock/cmd/stop", payload: "PRESS", retained: false))
        let command = await Self.next(&events) { if case .message = $0 { true } else { false } }
        #expect(command == .message(.init(topic: "clock/cmd/stop", payload: "PRESS", retained: false)))
        for client in [client, remote] { await client.stop() }
        broker.stop()
    }

    /// A certificate authority and a broker certificate for 127.0.0.1, made with openssl.
    static func certificates(in directory: String) async throws {
        let openssl = "/usr/bin/openssl"
        let steps: [[String]] = [
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=Test CA",
             "-keyout", directory + "/ca.key", "-out", directory + "/ca.crt"],
            ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", directory + "/server.key",
             "-out", directory + "/server.csr"],
            ["x509", "-req", "-in", directory + "/server.csr", "-CA", directory + "/ca.crt", "-CAkey", directory + "/ca.key",
             "-CAcreateserial", "-days", "2", "-extfile", directory + "/san.cnf", "-out", directory + "/server.crt"],
        ]
        try TestFiles.write(Array("subjectAltName=DNS:localhost,IP:127.0.0.1\n".utf8), to: directory + "/san.cnf")
        for step in steps {
            let result = try await ChildProcess.run(openssl, step)
            try #require(result.exitStatus == 0, "openssl \(step[0]): \(result.standardError)")
        }
    }

    @Test func overTLSTheBrokerIsVerifiedWithTheGivenAuthority() async throws {
        let keys = try TemporaryDirectory()
        try await Self.certificates(in: keys.path)
        let broker = try TestBroker(settings: """
            allow_anonymous true
            cafile \(keys.path)/ca.crt
            certfile \(keys.path)/server.crt
            keyfile \(keys.path)/server.key
            """)
        try await broker.start()
        let trusting = try MQTTClient(.init(host: "127.0.0.1", port: Int(broker.port), clientID: "tls", caFile: keys.path + "/ca.crt"))
        var events = trusting.events().makeAsyncIterator()
        trusting.start()
        #expect(await Self.next(&events, Self.isConnected) == .connected)
        await trusting.stop()
        // Another authority (the server's own certificate is not one): refused, and said so.
        let doubting = try MQTTClient(.init(host: "127.0.0.1", port: Int(broker.port), clientID: "tls2", caFile: keys.path + "/server.crt"))
        var doubts = doubting.events().makeAsyncIterator()
        doubting.start()
        let refused = await Self.next(&doubts, Self.isDisconnected)
        #expect(refused != nil && refused != .connected)
        await doubting.stop()
        #expect(throws: MQTTError.self) {
            _ = try MQTTClient(.init(host: "127.0.0.1", port: 1, clientID: "x", caFile: keys.path + "/missing.crt"))
        }
        broker.stop()
    }
}
