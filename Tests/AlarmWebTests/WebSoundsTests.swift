import AlarmAppliance
import AlarmModel
import AlarmHardware
import AlarmTestKit
@testable import AlarmWeb
import FoundationEssentials
import Glibc
import Testing

/// The page's sounds: a paired browser sends a file in parts, alarmd keeps it once it decodes,
/// an alarm rings with it, it is heard for five seconds, and deleted once no alarm uses it.
/// Nobody else gets room for a large body.
@Suite(.timeLimit(.minutes(5))) struct WebSoundsTests {
    static let wav = SineWAV.bytes(sampleRate: 48_000, bits: 16, seconds: 3, channels: [(660, 0.5)])  // 288 kB: two parts

    /// A part of a sound as the page sends it.
    func part(
        _ rig: WebRig, _ bytes: ArraySlice<UInt8>, name: String, upload: String? = nil, offset: Int, final: Bool,
        cookies: [String: String], type: String = "application/octet-stream", origin: String = WebRig.origin
    ) async -> WebResponse {
        var headers = ["Host": "clock.local:8080", "Origin": origin, "Content-Type": type]
        headers["Cookie"] = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        return await rig.app.respond(to: WebRequest(
            method: "PUT", path: "/api/sounds/\(name)?offset=\(offset)\(upload.map { "&upload=" + $0 } ?? "")&final=\(final ? 1 : 0)", headers: headers,
            body: Data(bytes), peer: WebRig.phone))
    }

    @Test func aSoundSentInPartsIsKeptRingsIsHeardAndIsDeletedOnceUnused() async throws {
        let rig = try await WebRig()
        let cookies = try await rig.pair()
        let half = WebApp.maximumUploadBody
        let first = await part(rig, Self.wav[..<half], name: "Dawn%20chorus.wav", offset: 0, final: false, cookies: cookies)
        #expect(first.status == 200)
        #expect(try WebRig.json(first)["received"] as? Int == half)
        let upload = try #require(try WebRig.json(first)["upload"] as? String)
        // A part at the wrong place is not taken: the answer says where to go on.
        let ahead = await part(rig, Self.wav[half...], name: "Dawn%20chorus.wav", upload: upload, offset: half + 10, final: true, cookies: cookies)
        #expect(try WebRig.json(ahead)["received"] as? Int == half && WebRig.json(ahead)["kept"] as? Bool == false)
        let last = await part(rig, Self.wav[half...], name: "Dawn%20chorus.wav", upload: upload, offset: half, final: true, cookies: cookies)
        #expect(last.status == 200, "\(String(decoding: last.body, as: UTF8.self))")
        #expect(try WebRig.json(last)["kept"] as? Bool == true)
        #expect(TestFiles.read(rig.directory.path + "/household-sounds/Dawn chorus.wav").map { $0 == Self.wav } == true)

        let state = try WebRig.json(await rig.request("GET", "/api/state", cookies: cookies))
        let files = try #require(state["soundFiles"] as? [[String: Any]])
        #expect(files.first?["name"] as? String == "Dawn chorus.wav" && files.first?["origin"] as? String == "household")

        let alarm = await rig.request("POST", "/api/alarms", json: #"{"time":"07:30","sound":"Dawn chorus.wav"}"#, cookies: cookies)
        #expect(alarm.status == 201, "\(String(decoding: alarm.body, as: UTF8.self))")
        let id = try #require(try WebRig.json(alarm)["id"] as? String)

        #expect(await rig.request("POST", "/api/sounds/Dawn%20chorus.wav/play", json: #"{"volumePercent":50}"#, cookies: cookies).status == 200)
        #expect(rig.audio.nowPlaying?.source == .file(rig.directory.path + "/household-sounds/Dawn chorus.wav"))
        #expect(rig.audio.nowPlaying?.gain == .constant(VolumePercent.decibels(percent: 50)))
        var changes = rig.audio.events().makeAsyncIterator()
        rig.clock.advance(by: 5)
        while rig.audio.nowPlaying != nil { _ = await changes.next() }

        let refused = await rig.request("DELETE", "/api/sounds/Dawn%20chorus.wav", cookies: cookies)
        #expect(refused.status == 409)
        #expect(await rig.request("DELETE", "/api/alarms/\(id)", cookies: cookies).status == 200)
        #expect(await rig.request("DELETE", "/api/sounds/Dawn%20chorus.wav", cookies: cookies).status == 200)
        #expect(TestFiles.names(in: rig.directory.path + "/household-sounds").isEmpty)
        await rig.stop()
    }

    @Test func aFileThatIsNoSoundIsRefusedWithTheReason() async throws {
        let rig = try await WebRig()
        let cookies = try await rig.pair()
        let junk = Array(repeating: UInt8(ascii: "x"), count: 40_000)
        let answer = await part(rig, junk[...], name: "song.mp3", offset: 0, final: true, cookies: cookies)
        #expect(answer.status == 400)
        #expect(String(decoding: answer.body, as: UTF8.self).contains("song.mp3 is not a sound alarmd can ring with"))
        #expect(TestFiles.names(in: rig.directory.path + "/household-sounds").isEmpty)
        await rig.stop()
    }

    @Test func onlyAPairedBrowserOnThePageSendsASoundAndNoNameLeavesTheDirectory() async throws {
        let rig = try await WebRig()
        let cookies = try await rig.pair()
        let bytes = Self.wav[..<1000]
        #expect(await part(rig, bytes, name: "a.wav", offset: 0, final: false, cookies: [:]).status == 401)
        #expect(await part(rig, bytes, name: "a.wav", offset: 0, final: false, cookies: cookies, origin: "http://evil.example").status == 403)
        #expect(await part(rig, bytes, name: "a.wav", offset: 0, final: false, cookies: cookies, type: "text/plain").status == 415)
        for name in ["..%2F..%2Fetc%2Fcron.wav", "%2E%2Ehidden.wav", "bad%ZZ.wav", "notes.txt"] {
            #expect(await part(rig, bytes, name: name, offset: 0, final: false, cookies: cookies).status == 400, "\(name)")
        }
        #expect(await part(rig, bytes, name: "a.wav", offset: 0, final: false, cookies: cookies).status == 200)
        #expect(TestFiles.names(in: rig.directory.path).contains("etc") == false)
        await rig.stop()
    }

    @Test func aLargeBodyIsReadOnlyFromAPairedBrowser() async throws {
        let rig = try await WebRig()
        let cookies = try await rig.pair()
        let page = try rig.serve()
        let body = Array(Self.wav[..<WebApp.maximumUploadBody])
        func send(cookie: String?) async throws -> HTTPTestResponse {
            let client = try TCPClient(port: page.port)
            var head = [
                "PUT /api/sounds/big.wav?offset=0&final=0 HTTP/1.1", "Host: 127.0.0.1:\(page.port)", "Origin: http://127.0.0.1:\(page.port)",
                "Content-Type: application/octet-stream", "Content-Length: \(body.count)",
            ]
            if let cookie { head.append("Cookie: alarm_session=\(cookie)") }
            await client.send(Array((head.joined(separator: "\r\n") + "\r\n\r\n").utf8) + body)
            return try await client.response()
        }
        let stranger = try await send(cookie: nil)
        #expect(stranger.status == 413, "refused from its head, before the body is read")
        let paired = try await send(cookie: cookies["alarm_session"])
        #expect(paired.status == 200, "\(paired.text)")
        await page.stop()
        await rig.stop()
    }
}
