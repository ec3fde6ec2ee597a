import AlarmHardware
@testable import AlarmEngine
import AlarmDaemon
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import Foundation
import Testing
import WebPairings

@testable import AlarmWeb

/// The page's HTTP API: who it lets in (pairing at the clock, cookies, origins) and what bad
/// requests get, against a real engine and control server.
@Suite(.timeLimit(.minutes(5))) struct WebAPITests {
    /// Every API route but pairing, with a body where the route takes one.
    static let routes: [(String, String, String?)] = [
        ("GET", "/api/state", nil), ("GET", "/api/events", nil),
        ("POST", "/api/alarms", #"{"time":"07:30"}"#), ("PUT", "/api/alarms/\(UUID())", #"{"time":"07:30"}"#),
        ("DELETE", "/api/alarms/\(UUID())", nil), ("POST", "/api/alarms/\(UUID())/stop", nil),
        ("POST", "/api/alarms/\(UUID())/snooze", nil), ("POST", "/api/timers", #"{"seconds":60}"#),
        ("POST", "/api/timers/\(UUID())/pause", nil), ("DELETE", "/api/timers/\(UUID())", nil),
        ("DELETE", "/api/pairings/abc", nil),
        ("PUT", "/api/settings", #"{"volumeDB":-6,"crescendoSeconds":30,"snoozeSeconds":540,"autoSilenceSeconds":900}"#),
        ("POST", "/api/settings/try", #"{"volumeDB":-6,"crescendoSeconds":30,"snoozeSeconds":540,"autoSilenceSeconds":900}"#),
    ]

    @Test func everyRouteRefusesABrowserThatIsNotPaired() async throws {
        let rig = try await WebRig()
        for (method, path, body) in Self.routes {
            for cookies in [[:], ["alarm_session": "guessed"]] {
                let response = await rig.request(method, path, json: body, cookies: cookies)
                #expect(response.status == 401, "\(method) \(path)")
                #expect(try WebRig.json(response)["pairing"] as? Bool == true)
            }
        }
        #expect(await rig.runtime.allRecords().isEmpty)
        await rig.stop()
    }

    @Test func pairingAtTheClockLetsThatBrowserIn() async throws {
        let rig = try await WebRig()
        let (ticket, code) = try await rig.ask(name: "Alice's phone")
        #expect(code.count == 4)
        #expect(rig.display.lines[0].hasPrefix("Pair phone"))
        await rig.holdBoth()
        let collected = await rig.request("POST", "/api/pair/wait", cookies: ticket)
        #expect(collected.status == 200)
        let cookies = try #require(WebRig.cookies(collected))
        let session = try #require(cookies["alarm_session"])
        #expect(collected.headers.contains { $0.0 == "Set-Cookie" && $0.1.contains("HttpOnly") && $0.1.contains("SameSite=Strict") })
        let state = await rig.request("GET", "/api/state", cookies: ["alarm_session": session])
        #expect(state.status == 200)
        let pairings = try #require(try WebRig.json(state)["pairings"] as? [[String: Any]])
        #expect(pairings.map { $0["name"] as? String } == ["Alice's phone"])
        #expect(pairings.first?["current"] as? Bool == true)
        // The ticket is spent: the same browser cannot collect a second pairing with it.
        #expect(await rig.request("POST", "/api/pair/wait", cookies: ticket).status == 409)
        await rig.stop()
    }

    @Test func stopAtTheClockRefusesAndNobodyIsLetIn() async throws {
        let rig = try await WebRig()
        let (ticket, _) = try await rig.ask(name: "Mallory")
        await rig.answer(.stop)
        let collected = await rig.request("POST", "/api/pair/wait", cookies: ticket)
        #expect(collected.status == 403)
        #expect(WebRig.cookies(collected)?["alarm_session"] == nil)
        #expect(rig.app.book.all.isEmpty)
        await rig.stop()
    }

    @Test func anotherBrowserCannotCollectAPairingItDidNotAskFor() async throws {
        let rig = try await WebRig()
        _ = try await rig.ask(name: "Alice's phone")
        await rig.holdBoth()
        let thief = await rig.request("POST", "/api/pair/wait", cookies: ["alarm_pairing": "0123456789abcdef0123456789abcdef"])
        #expect(thief.status == 409)
        #expect(WebRig.cookies(thief) == nil)
        await rig.stop()
    }

    @Test func pairingIsOneQuestionAtATimeAndRateLimitedPerAddress() async throws {
        let rig = try await WebRig()
        let (first, _) = try await rig.ask(name: "first")
        #expect(await rig.request("POST", "/api/pair", json: #"{"name":"second"}"#, peer: "192.0.2.99").status == 409)
        await rig.answer(.stop)
        #expect(await rig.request("POST", "/api/pair/wait", cookies: first).status == 403)
        for attempt in 2...PairingDesk.attemptsPerAddress {
            let (ticket, _) = try await rig.ask(name: "attempt \(attempt)")
            await rig.answer(.stop)
            #expect(await rig.request("POST", "/api/pair/wait", cookies: ticket).status == 403)
        }
        let refused = await rig.request("POST", "/api/pair", json: #"{"name":"one more"}"#)
        #expect(refused.status == 429)
        #expect((try WebRig.json(refused)["error"] as? String)?.contains("try again in") == true)
        // Another device is not locked out by the first one's attempts.
        _ = try await rig.pair(name: "Bob's phone", peer: "192.0.2.20")
        #expect(rig.app.book.all.map(\.name) == ["Bob's phone"])
        await rig.stop()
    }

    @Test func aQuestionAnAlarmCoversIsWithdrawnAndTheNextWithinAMinuteWaits() async throws {
        let rig = try await WebRig()
        let (ticket, _) = try await rig.ask(name: "Mallory")
        let alarm = AlarmDefinition(
            schedule: .fixed(rig.clock.now.addingTimeInterval(5)), countdownDuration: .init(preAlert: nil, postAlert: 300),
            presentation: AlarmPresentation(alert: .init(title: "Wake up", stopButton: .stop, secondaryButton: .snooze, secondaryButtonBehavior: .countdown)))
        _ = try await rig.runtime.schedule(id: Alarm.ID(), definition: alarm, client: ClientID(rawValue: 1001))
        rig.clock.advance(by: 5)
        await rig.runtime.handleWake(.deadlineReached)
        await rig.appliance.refresh()
        let withdrawn = await rig.request("POST", "/api/pair/wait", cookies: ticket)
        #expect(withdrawn.status == 409)
        #expect((try WebRig.json(withdrawn)["error"] as? String)?.contains("an alarm rang") == true)
        // The sleeper snoozes, and presses SNOOZE again: nobody is paired.
        await rig.answer(.snooze)
        await rig.answer(.snooze)
        #expect(rig.app.book.all.isEmpty)
        // Asked again within the minute: the display stays dark and the phone is told when to ask.
        let again = await rig.request("POST", "/api/pair", json: #"{"name":"Mallory"}"#)
        #expect(again.status == 201)
        let waited = await rig.request("POST", "/api/pair/wait", cookies: try #require(WebRig.cookies(again)))
        #expect(waited.status == 429)
        #expect((try WebRig.json(waited)["error"] as? String)?.contains("less than a minute ago") == true)
        #expect(!rig.display.lines.joined().contains("Pair phone"))
        await rig.stop()
    }

    @Test func anIPv6HostAsksAsOneAddressWhicheverOfItsAddressesItUses() async throws {
        let rig = try await WebRig()
        for (attempt, peer) in ["2001:db8:1:2::a", "2001:db8:1:2:ffff::1", "2001:db8:1:2:1234:5678:9abc:def0"].enumerated() {
            let (ticket, _) = try await rig.ask(name: "attempt \(attempt)", peer: peer)
            await rig.answer(.stop)
            #expect(await rig.request("POST", "/api/pair/wait", cookies: ticket, peer: peer).status == 403)
        }
        #expect(await rig.request("POST", "/api/pair", json: #"{"name":"x"}"#, peer: "2001:db8:1:2::beef").status == 429)
        // Another network's host is another asker.
        _ = try await rig.pair(name: "Bob's phone", peer: "2001:db8:1:3::a")
        #expect(PairingDesk.asker("2001:db8:1:2::a") == "2001:db8:1:2::/64")
        #expect(PairingDesk.asker("192.0.2.1") == "192.0.2.1")
        await rig.stop()
    }

    @Test func theOverallLimitKeepsTwoQuestionsForAnAddressThatHasNotAsked() async throws {
        let rig = try await WebRig()
        func askAndRefuse(from peer: String) async throws {
            let (ticket, _) = try await rig.ask(name: "from \(peer)", peer: peer)
            await rig.answer(.stop)
            #expect(await rig.request("POST", "/api/pair/wait", cookies: ticket, peer: peer).status == 403)
        }
        // Eight questions from three addresses use up what an address that asked may ask...
        for peer in ["192.0.2.1", "192.0.2.1", "192.0.2.1", "192.0.2.2", "192.0.2.2", "192.0.2.2", "192.0.2.3", "192.0.2.3"] {
            try await askAndRefuse(from: peer)
        }
        #expect(await rig.request("POST", "/api/pair", json: #"{"name":"x"}"#, peer: "192.0.2.3").status == 429)
        // ...and leave two for addresses that have not asked; then nobody may ask.
        try await askAndRefuse(from: "192.0.2.4")
        _ = try await rig.pair(name: "Carol's phone", peer: "192.0.2.5")
        #expect(await rig.request("POST", "/api/pair", json: #"{"name":"x"}"#, peer: "192.0.2.6").status == 429)
        // The window moves on: the oldest questions no longer count.
        rig.clock.advance(by: PairingDesk.window)
        _ = try await rig.pair(name: "Dave's phone", peer: "192.0.2.3")
        await rig.stop()
    }

    @Test func bodiesMustBeJSONAsStrictAsTheSockets() async throws {
        let rig = try await WebRig()
        let cookies = try await rig.pair()
        let lax = [
            #"{"time":"07:30","time":"08:00"}"#, #"{"time":"07:30",}"#, #"{"time":"07:30","repeat":["mon",]}"#,
            #"{"time":"07:30"} // note"#, #"{'time':"07:30"}"#, #"{"time":"07:30","snoozeSeconds":0300}"#,
            "{\"time\":\"07:30\",\"label\":\"a\u{1}b\"}", #"{"time":"07:30","label":"\x41"}"#, "\u{FEFF}{\"time\":\"07:30\"}",
        ]
        for body in lax {
            let response = await rig.request("POST", "/api/alarms", json: body, cookies: cookies)
            #expect(response.status == 400, "\(body)")
            #expect((try WebRig.json(response)["error"] as? String)?.contains("not strict JSON") == true, "\(body)")
        }
        #expect(await rig.request("POST", "/api/timers", json: #"{"seconds":60,"seconds":1}"#, cookies: cookies).status == 400)
        #expect(await rig.request("PUT", "/api/settings", json: #"{"volumeDB":-6,"crescendoSeconds":30,"snoozeSeconds":540,"autoSilenceSeconds":900,}"#, cookies: cookies).status == 400)
        #expect(await rig.request("POST", "/api/pair", json: #"{"name":"a","name":"b"}"#).status == 400)
        #expect(await rig.runtime.allRecords().isEmpty)
        await rig.stop()
    }

    @Test func editingAnAlarmThatIsNotThereChangesNothing() async throws {
        let rig = try await WebRig()
        let cookies = try await rig.pair()
        for _ in 1...3 {
            let response = await rig.request("PUT", "/api/alarms/\(UUID())", json: #"{"time":"07:30"}"#, cookies: cookies)
            #expect(response.status == 404)
        }
        // Someone else's alarm is not the page's to edit either.
        let theirs = Alarm.ID()
        _ = try await rig.runtime.schedule(id: theirs, definition: try AlarmForm(time: "06:00").alarm(), client: ClientID(rawValue: 1001))
        #expect(await rig.request("PUT", "/api/alarms/\(theirs)", json: #"{"time":"07:30"}"#, cookies: cookies).status == 404)
        #expect(await rig.runtime.allRecords().map(\.id) == [theirs])
        #expect(await rig.runtime.allRecords().map(\.id) == [theirs])
        await rig.stop()
    }

    /// An app or a script holding an alarm's id keeps it when the alarm is edited on the page.
    @Test func editingAnAlarmKeepsItsIdInOneStep() async throws {
        let rig = try await WebRig()
        let cookies = try await rig.pair()
        let added = try WebRig.json(await rig.request("POST", "/api/alarms", json: #"{"time":"06:45","label":"Gym"}"#, cookies: cookies))
        let id = try #require(added["id"] as? String)
        let before = await rig.runtime.allRecords()
        let edited = try WebRig.json(await rig.request("PUT", "/api/alarms/\(id)", json: #"{"time":"07:15","label":"Run"}"#, cookies: cookies))
        #expect(edited["id"] as? String == id)
        let records = await rig.runtime.allRecords()
        #expect(records.map(\.id.uuidString) == [id])
        #expect(records.first?.definition.presentation.alert.title == "Run")
        #expect(records.first?.sequenceNumber == before.first?.sequenceNumber, "it keeps its place in the list")
        guard case .relative(let relative)? = records.first?.definition.schedule else {
            Issue.record("not a wall-time alarm: \(String(describing: records.first?.definition.schedule))")
            return
        }
        #expect(relative.time == .init(hour: 7, minute: 15))

        // A ringing alarm is not edited (it would be silenced): 409, and it rings on unchanged.
        let ringing = Alarm.ID()
        let owner = ClientID(rawValue: getuid())
        _ = try await rig.runtime.schedule(id: ringing, definition: AlarmDefinition(
            schedule: .fixed(rig.clock.now), countdownDuration: nil, presentation: .init(alert: .init(title: "Now"))), client: owner)
        #expect(await rig.request("PUT", "/api/alarms/\(ringing)", json: #"{"time":"07:30"}"#, cookies: cookies).status == 409)
        #expect(await rig.runtime.record(for: AlarmKey(owner: owner, id: ringing))?.phase.isAlerting == true)
        await rig.stop()
    }

    @Test func changesFromAnotherOriginAreRefused() async throws {
        let rig = try await WebRig()
        let cookies = try await rig.pair()
        for origin in ["http://evil.example", "null", "http://clock.local:8081", "https://evil.example:8080"] as [String?] + [nil] {
            let response = await rig.request("POST", "/api/alarms", json: #"{"time":"07:30"}"#, cookies: cookies, origin: origin)
            #expect(response.status == 403, "Origin \(origin ?? "missing")")
        }
        #expect(await rig.request("POST", "/api/pair", json: #"{"name":"x"}"#, origin: "http://evil.example").status == 403)
        #expect(await rig.runtime.allRecords().isEmpty)
        await rig.stop()
    }

    @Test func malformedBodiesGet400AndChangeNothing() async throws {
        let rig = try await WebRig()
        let cookies = try await rig.pair()
        let kept = await rig.request("POST", "/api/alarms", json: #"{"time":"06:45","repeat":["mon"]}"#, cookies: cookies)
        #expect(kept.status == 201)
        let keptID = try #require(try WebRig.json(kept)["id"] as? String)
        let bad = [
            "", "{", "[]", "null", #"{"time":7}"#, #"{"time":"24:00"}"#, #"{"time":"7:5"}"#, #"{"time":"07:30","repeat":["someday"]}"#,
            #"{"time":"07:30","snoozeSeconds":5}"#, #"{"time":"07:30","sound":"../../etc/passwd"}"#,
            #"{"time":"07:30","label":"\#(String(repeating: "x", count: 65))"}"#,
            #"{"time":"07:30","fadeSeconds":2701}"#, #"{"time":"07:30","volumePercent":101}"#, #"{"time":"07:30","volumePercent":"60"}"#,
        ]
        for body in bad {
            #expect(await rig.request("POST", "/api/alarms", json: body, cookies: cookies).status == 400, "\(body)")
            #expect(await rig.request("PUT", "/api/alarms/\(keptID)", json: body, cookies: cookies).status == 400, "\(body)")
        }
        for body in ["{}", #"{"seconds":0}"#, #"{"seconds":"60"}"#, #"{"seconds":86401}"#] {
            #expect(await rig.request("POST", "/api/timers", json: body, cookies: cookies).status == 400, "\(body)")
        }
        var form = await rig.request("POST", "/api/alarms", json: #"{"time":"07:30"}"#, cookies: cookies)
        form = await rig.app.respond(to: WebRequest(
            method: "POST", path: "/api/alarms",
            headers: ["Host": "clock.local:8080", "Origin": WebRig.origin, "Content-Type": "application/x-www-form-urlencoded",
                      "Cookie": "alarm_session=\(cookies["alarm_session"] ?? "")"],
            body: Data("time=07:30".utf8), peer: WebRig.phone))
        #expect(form.status == 415)
        let records = await rig.runtime.allRecords()
        #expect(records.count == 2)
        #expect(records.contains { $0.id.uuidString == keptID })
        await rig.stop()
    }

    @Test func anAlarmsFadeAndVolumeAreKeptAsItsWakeAndAnEditWithoutThemGivesThemBack() async throws {
        let rig = try await WebRig()
        let cookies = try await rig.pair()
        let made = await rig.request(
            "POST", "/api/alarms", json: #"{"time":"06:30","fadeSeconds":1800,"volumePercent":50}"#, cookies: cookies)
        #expect(made.status == 201)
        let id = try #require(try WebRig.json(made)["id"] as? String)
        #expect(await rig.runtime.allRecords().first?.wake == AlarmWake(crescendoSeconds: 1_800, volumeDB: -15.6))
        let state = try WebRig.json(await rig.request("GET", "/api/state", cookies: cookies))
        let shown = try #require((state["alarms"] as? [[String: Any]])?.first)
        #expect(shown["fadeSeconds"] as? Int == 1_800 && shown["volumePercent"] as? Int == 50)

        #expect(await rig.request("PUT", "/api/alarms/\(id)", json: #"{"time":"06:40"}"#, cookies: cookies).status == 200)
        #expect(await rig.runtime.allRecords().first?.wake == nil, "fields left out: the household's")
        await rig.stop()
    }

    @Test func aRevokedBrowserIsRefused() async throws {
        let rig = try await WebRig()
        let alice = try await rig.pair(name: "Alice")
        let bob = try await rig.pair(name: "Bob")
        let bobID = try #require(rig.app.book.all.first { $0.name == "Bob" }?.id)
        #expect(await rig.request("DELETE", "/api/pairings/\(bobID)", cookies: alice).status == 200)
        #expect(await rig.request("GET", "/api/state", cookies: bob).status == 401)
        #expect(await rig.request("GET", "/api/state", cookies: alice).status == 200)
        // Revoked from the shell (alarmctl web revoke writes the file): refused at the next request.
        try PairingsFile.write(PairingsFile.read(in: rig.directory.path + "/web").filter { $0.name != "Alice" }, in: rig.directory.path + "/web")
        #expect(await rig.request("GET", "/api/state", cookies: alice).status == 401)
        _ = try await rig.pair(name: "Alice")
        // The book is on disk: a restarted page still refuses Bob and knows Alice.
        let reread = PairingBook(directory: rig.directory.path + "/web", logger: WebRig.logger)
        #expect(reread.all.map(\.name) == ["Alice"])
        await rig.stop()
    }

    @Test func aWeekdayAlarmAndATimerReachTheEngine() async throws {
        let rig = try await WebRig()
        let cookies = try await rig.pair()
        let added = await rig.request(
            "POST", "/api/alarms", json: #"{"time":"7:30","repeat":["mon","tue","wed","thu","fri"],"label":"Work","snoozeSeconds":300}"#,
            cookies: cookies)
        #expect(added.status == 201)
        #expect(await rig.request("POST", "/api/timers", json: #"{"seconds":300,"label":"Tea"}"#, cookies: cookies).status == 201)
        let state = try WebRig.json(await rig.request("GET", "/api/state", cookies: cookies))
        let alarm = try #require((state["alarms"] as? [[String: Any]])?.first)
        #expect(alarm["time"] as? String == "07:30")
        #expect(alarm["repeat"] as? [String] == ["mon", "tue", "wed", "thu", "fri"])
        #expect(alarm["snoozeSeconds"] as? Int == 300)
        #expect(alarm["mine"] as? Bool == true)
        let timer = try #require((state["timers"] as? [[String: Any]])?.first)
        #expect(timer["state"] as? String == "countdown")
        #expect(timer["remainingSeconds"] as? Int == 300)
        let timerID = try #require(timer["id"] as? String)
        let alarmID = try #require(alarm["id"] as? String)
        #expect(await rig.request("POST", "/api/alarms/\(alarmID)/disable", cookies: cookies).status == 200)
        var record = try #require(await rig.runtime.allRecords().first { $0.id.uuidString == alarmID })
        #expect(!record.enabled)
        var shown = try #require((try WebRig.json(await rig.request("GET", "/api/state", cookies: cookies))["alarms"] as? [[String: Any]])?.first)
        #expect(shown["state"] as? String == "disabled")
        #expect(shown["next"] == nil)
        #expect(await rig.request("POST", "/api/alarms/\(alarmID)/enable", cookies: cookies).status == 200)
        #expect(await rig.request("POST", "/api/alarms/\(alarmID)/skip", cookies: cookies).status == 200)
        record = try #require(await rig.runtime.allRecords().first { $0.id.uuidString == alarmID })
        #expect(record.enabled && record.skippedDate != nil)
        shown = try #require((try WebRig.json(await rig.request("GET", "/api/state", cookies: cookies))["alarms"] as? [[String: Any]])?.first)
        #expect(shown["skippedDate"] as? String == record.skippedDate.map { "\($0)" })
        #expect(await rig.request("POST", "/api/timers/\(timerID)/skip", cookies: cookies).status == 409)
        #expect(await rig.request("POST", "/api/timers/\(timerID)/pause", cookies: cookies).status == 200)
        #expect(await rig.request("POST", "/api/timers/\(timerID)/pause", cookies: cookies).status == 409)
        await rig.stop()
    }
}

/// The page's big Stop and Snooze act as the clock's buttons: on anyone's ringing alarm.
@Suite(.timeLimit(.minutes(5))) struct WebRingingTests {
    @Test func stopFromThePageSilencesAnAlarmSomeoneElseSet() async throws {
        let rig = try await WebRig()
        let cookies = try await rig.pair()
        let someone = ClientID(rawValue: 1001)
        let id = Alarm.ID()
        let fixed = AlarmDefinition(
            schedule: .fixed(WebRig.start.addingTimeInterval(60)), countdownDuration: .init(preAlert: nil, postAlert: 300),
            presentation: AlarmPresentation(alert: .init(title: "Bob's alarm", stopButton: .stop, secondaryButton: .snooze, secondaryButtonBehavior: .countdown)))
        _ = try await rig.runtime.schedule(id: id, definition: fixed, client: someone)
        rig.clock.advance(by: 60)
        await rig.runtime.handleWake(.deadlineReached)
        let state = try WebRig.json(await rig.request("GET", "/api/state", cookies: cookies))
        let ringing = try #require((state["ringing"] as? [[String: Any]])?.first)
        #expect(ringing["label"] as? String == "Bob's alarm")
        #expect(ringing["mine"] as? Bool == false)
        #expect(await rig.request("POST", "/api/alarms/\(id.uuidString)/snooze", cookies: cookies).status == 200)
        #expect(await rig.runtime.record(for: AlarmKey(owner: someone, id: id))?.phase.state == .countdown)
        rig.clock.advance(by: 300)
        await rig.runtime.handleWake(.deadlineReached)
        #expect(await rig.runtime.record(for: AlarmKey(owner: someone, id: id))?.phase.state == .alerting)
        #expect(await rig.request("POST", "/api/alarms/\(id.uuidString)/stop", cookies: cookies).status == 200)
        #expect(await rig.runtime.record(for: AlarmKey(owner: someone, id: id)) == nil)
        // Changing it otherwise stays its owner's: the page's own operations act on its own alarms.
        #expect(await rig.request("DELETE", "/api/alarms/\(UUID().uuidString)", cookies: cookies).status == 404)
        await rig.stop()
    }
}

extension WebRingingTests {
    /// Two alarms ringing, with one id (ids are each client's own): the page shows first the one
    /// the clock presents (the newest alert, as on its display), and its Stop stops that one.
    @Test func thePageShowsAndStopsTheAlarmTheClockPresents() async throws {
        let rig = try await WebRig()
        let cookies = try await rig.pair()
        let page = ClientID(rawValue: getuid()), someone = ClientID(rawValue: 1001)
        let id = Alarm.ID()
        func alarm(_ title: String, in seconds: TimeInterval) -> AlarmDefinition {
            AlarmDefinition(
                schedule: .fixed(WebRig.start.addingTimeInterval(seconds)), countdownDuration: nil,
                presentation: AlarmPresentation(alert: .init(title: title)))
        }
        _ = try await rig.runtime.schedule(id: id, definition: alarm("Mine", in: 60), client: page)
        _ = try await rig.runtime.schedule(id: id, definition: alarm("Bob's", in: 120), client: someone)
        rig.clock.advance(by: 60)
        await rig.runtime.handleWake(.deadlineReached)
        rig.clock.advance(by: 60)
        await rig.runtime.handleWake(.deadlineReached)
        let presented = try #require(await rig.runtime.alertingOrder.first, "what the display and the buttons act on")
        #expect(presented == AlarmKey(owner: someone, id: id))

        let state = try WebRig.json(await rig.request("GET", "/api/state", cookies: cookies))
        let ringing = try #require(state["ringing"] as? [[String: Any]])
        #expect(ringing.map { $0["label"] as? String } == ["Bob's", "Mine"])
        #expect(await rig.request("POST", "/api/alarms/\(id.uuidString)/stop", cookies: cookies).status == 200)
        #expect(await rig.runtime.record(for: AlarmKey(owner: someone, id: id)) == nil, "the presented one stopped")
        #expect(await rig.runtime.record(for: AlarmKey(owner: page, id: id))?.phase.isAlerting == true)
        await rig.stop()
    }
}

/// The household's settings: kept by alarmd, changed from the page, checked on both sides.
@Suite(.timeLimit(.minutes(5))) struct WebSettingsTests {
    /// A 45-minute fade in: the longest the household may choose.
    static let settings = #"{"volumeDB":-12,"crescendoSeconds":2700,"snoozeSeconds":300,"autoSilenceSeconds":600,"nightHours":"22:30-06:45","lightLeadSeconds":600,"lightAfterStop":"on"}"#

    @Test func aChangeReachesTheEngineAndTheFileAndBadValuesChangeNothing() async throws {
        let rig = try await WebRig()
        let cookies = try await rig.pair()
        let state = try WebRig.json(await rig.request("GET", "/api/state", cookies: cookies))
        #expect(state["clock24h"] as? Bool == true)
        let before = try #require((state["settings"] as? [String: Any])?.compactMapValues { $0 as? Double })
        #expect(before["volumeDB"] == -6 && before["autoSilenceSeconds"] == 900 && before["snoozeSeconds"] == 540)
        #expect(await rig.request("PUT", "/api/settings", json: Self.settings, cookies: cookies).status == 200)
        let after = try #require((try WebRig.json(await rig.request("GET", "/api/state", cookies: cookies))["settings"] as? [String: Any])?
            .filter { $0.key != "clock24h" }.compactMapValues { $0 as? Double })
        #expect(after == ["volumeDB": -12, "crescendoSeconds": 2700, "snoozeSeconds": 300, "autoSilenceSeconds": 600, "lightLeadSeconds": 600])
        #expect(await rig.runtime.scheduler.policy.autoSilence == 600)
        #expect(await rig.appliance.settings.volume == -12)
        #expect(await rig.appliance.settings.nightHours == NightHours("22:30-06:45"))
        #expect(await rig.appliance.settings.sunriseLead == .seconds(600))
        #expect(await rig.appliance.settings.lightAfterStop == .on)
        let bad = [
            #"{"volumeDB":-12,"crescendoSeconds":60,"snoozeSeconds":300,"autoSilenceSeconds":600,"nightHours":"22:30"}"#,
            #"{"volumeDB":-12,"crescendoSeconds":60,"snoozeSeconds":300,"autoSilenceSeconds":600,"nightHours":"06:00-06:00"}"#,
            #"{"volumeDB":-12,"crescendoSeconds":60,"snoozeSeconds":300,"autoSilenceSeconds":600,"lightLeadSeconds":3601}"#,
            #"{"volumeDB":-12,"crescendoSeconds":60,"snoozeSeconds":300,"autoSilenceSeconds":600,"lightAfterStop":"dim"}"#,
            #"{"volumeDB":-12,"crescendoSeconds":60,"snoozeSeconds":300,"autoSilenceSeconds":600,"defaultSound":"../x.wav"}"#,
            #"{"volumeDB":3,"crescendoSeconds":60,"snoozeSeconds":300,"autoSilenceSeconds":600}"#,
            #"{"volumeDB":-12,"crescendoSeconds":-1,"snoozeSeconds":300,"autoSilenceSeconds":600}"#,
            #"{"volumeDB":-12,"crescendoSeconds":2701,"snoozeSeconds":300,"autoSilenceSeconds":600}"#,
            #"{"volumeDB":-12,"crescendoSeconds":60,"snoozeSeconds":0,"autoSilenceSeconds":600}"#,
            #"{"volumeDB":-12}"#, "{", "",
        ]
        for body in bad {
            #expect(await rig.request("PUT", "/api/settings", json: body, cookies: cookies).status == 400, "\(body)")
        }
        let kept = HouseholdSettingsFile(
            directory: rig.directory.path, defaults: HouseholdSettings(DaemonConfiguration()), logger: WebRig.logger)
        #expect(kept.settings == HouseholdSettings(
            volumeDB: -12, crescendoSeconds: 2700, snoozeSeconds: 300, autoSilenceSeconds: 600, nightHours: "22:30-06:45",
            lightLeadSeconds: 600, lightAfterStop: "on", defaultSound: "tone"))
        await rig.stop()
    }

    @Test func tryingTheVolumePlaysTheToneThenStops() async throws {
        let rig = try await WebRig()
        let cookies = try await rig.pair()
        #expect(await rig.request("POST", "/api/settings/try", json: Self.settings, cookies: cookies).status == 200)
        #expect(rig.audio.nowPlaying?.source == .builtInTone)
        #expect(rig.audio.nowPlaying?.gain == .constant(-12))
        var changes = rig.audio.events().makeAsyncIterator()
        rig.clock.advance(by: 3)
        while rig.audio.nowPlaying != nil { _ = await changes.next() }
        #expect(rig.audio.nowPlaying == nil)
        await rig.stop()
    }
}
