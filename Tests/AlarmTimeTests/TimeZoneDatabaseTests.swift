import AlarmTestKit
import AlarmTime
import FoundationEssentials
import Glibc
import Testing

@Suite struct TimeZoneDatabaseTests {
    let database = TimeZoneDatabase()
    let july = Support.instant("2026-07-01T12:00Z")

    @Test func namedZones() throws {
        let berlin = try database.rules(named: "Europe/Berlin")
        #expect(berlin.identifier == "Europe/Berlin")
        #expect(berlin.offset(at: july) == 7_200)
        #expect(try database.rules(named: "UTC").offset(at: july) == 0)
        #expect(database.isKnownZone("Asia/Tokyo"))
        #expect(!database.isKnownZone("Mars/Olympus"))
        #expect(!database.isKnownZone("zone.tab"))
        #expect(!database.isKnownZone("Europe"))
    }

    @Test(arguments: ["../etc/passwd", "/etc/passwd", "", "Europe/../../etc/passwd", "..", "Europe/\u{0}Berlin"])
    func rejectsNamesOutsideTheDatabase(name: String) {
        #expect(throws: TimeZoneError.invalidZoneName(name)) { try database.rules(named: name) }
        #expect(!database.isKnownZone(name))
    }

    @Test func errorsNameTheProblem() {
        #expect(throws: TimeZoneError.unknownZone("Mars/Olympus")) { try database.rules(named: "Mars/Olympus") }
        #expect(throws: TimeZoneError.unknownZone("Europe")) { try database.rules(named: "Europe") }
        #expect(throws: TimeZoneError.unreadableFile(path: "/nonexistent/zone", errno: ENOENT)) {
            try database.rules(atPath: "/nonexistent/zone", identifier: "x")
        }
        #expect {
            try database.rules(named: "zone.tab")
        } throws: { error in
            guard case .malformedTZif(let source, let reason) = error as? TimeZoneError else { return false }
            return source == "/usr/share/zoneinfo/zone.tab" && reason.contains("magic")
        }
        #expect(TimeZoneError.unknownZone("Mars/Olympus").description == "unknown time zone \"Mars/Olympus\"")
        #expect(TimeZoneError.unreadableFile(path: "/x", errno: EACCES).description.contains("permission denied"))
    }

    @Test func systemZoneFollowsTZ() throws {
        #expect(try database.systemZone(environment: ["TZ": ""]) == .utc)
        #expect(try database.systemZone(environment: ["TZ": ":"]) == .utc)
        let colon = try database.systemZone(environment: ["TZ": ":Europe/Berlin"])
        #expect(colon.identifier == "Europe/Berlin" && colon.offset(at: july) == 7_200)
        let plain = try database.systemZone(environment: ["TZ": "Europe/Berlin"])
        #expect(plain == colon)
        let tokyo = try database.systemZone(environment: ["TZ": "/usr/share/zoneinfo/Asia/Tokyo"])
        #expect(tokyo.identifier == "Asia/Tokyo" && tokyo.offset(at: july) == 32_400)
        let posix = try database.systemZone(environment: ["TZ": "CET-1CEST,M3.5.0,M10.5.0/3"])
        #expect(posix.identifier == "CET-1CEST,M3.5.0,M10.5.0/3" && posix.offset(at: july) == 7_200)
        let quoted = try database.systemZone(environment: ["TZ": ":<+0530>-5:30"])
        #expect(quoted.offset(at: july) == 19_800)
        // A file of that name wins over the POSIX reading, as in glibc ("EST5EDT" has history before 2007).
        #expect(try database.systemZone(environment: ["TZ": "EST5EDT"]).identifier == "EST5EDT")
        #expect(throws: TimeZoneError.unknownZone("Mars/Olympus")) { try database.systemZone(environment: ["TZ": "Mars/Olympus"]) }
        #expect(throws: TimeZoneError.unknownZone("Nowhere")) { try database.systemZone(environment: ["TZ": ":Nowhere"]) }
        #expect(throws: TimeZoneError.invalidZoneName("../etc/passwd")) { try database.systemZone(environment: ["TZ": "../etc/passwd"]) }
        #expect(throws: TimeZoneError.unreadableFile(path: "/nonexistent", errno: ENOENT)) {
            try database.systemZone(environment: ["TZ": "/nonexistent"])
        }
        #expect {
            try database.systemZone(environment: ["TZ": "CET-1CEST,M3.5.0,M13.5.0/3"])
        } throws: { error in
            if case .malformedPOSIXTZ = error as? TimeZoneError { return true }
            return false
        }
    }

    @Test func systemZoneWithoutTZReadsLocaltime() throws {
        let scratch = try TemporaryDirectory()
        let directory = scratch.path
        symlink("/usr/share/zoneinfo/Pacific/Auckland", directory + "/link")
        symlink("../../usr/share/zoneinfo/America/New_York", directory + "/relative")
        guard case .success(let bytes) = TZifParsing.read("/usr/share/zoneinfo/Asia/Kolkata") else {
            Issue.record("cannot read Asia/Kolkata")
            return
        }
        let file = fopen(directory + "/copy", "wb")
        fwrite(bytes, 1, bytes.count, file)
        fclose(file)

        let linked = try database.systemZone(environment: [:], localtimePath: directory + "/link")
        #expect(linked.identifier == "Pacific/Auckland" && linked.offset(at: july) == 43_200)
        let relative = try database.systemZone(environment: ["HOME": "/root"], localtimePath: directory + "/relative")
        #expect(relative.identifier == "America/New_York" && relative.offset(at: july) == -14_400)
        let copied = try database.systemZone(environment: [:], localtimePath: directory + "/copy")
        #expect(copied.identifier == "localtime" && copied.offset(at: july) == 19_800)
        // Like glibc, a missing /etc/localtime means UTC.
        #expect(try database.systemZone(environment: [:], localtimePath: directory + "/missing") == .utc)
    }

    /// Every TZif file the system ships loads, so none of the database's features is unsupported.
    @Test func everySystemZoneLoads() throws {
        var failures: [String] = []
        var loaded = 0
        func walk(_ relative: String) {
            guard let directory = opendir(database.root + "/" + relative) else { return }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name.hasPrefix(".") || name.contains(".") { continue }
                let path = relative.isEmpty ? name : relative + "/" + name
                var status = stat()
                let isDirectory = stat(database.root + "/" + path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
                if entry.pointee.d_type == UInt8(DT_DIR) {
                    walk(path)
                } else if !isDirectory, name != "leapseconds" {  // posix/Europe etc. link to walked directories
                    do {
                        _ = try database.rules(named: path)
                        loaded += 1
                    } catch {
                        failures.append("\(error)")
                    }
                }
            }
        }
        walk("")
        #expect(loaded > 500)
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }
}

extension TimeZoneDatabase {
    /// True when `name` is a valid name whose file holds valid TZif data.
    func isKnownZone(_ name: String) -> Bool {
        (try? rules(named: name)) != nil
    }
}
