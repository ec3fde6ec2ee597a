import AlarmTestKit
import FoundationEssentials
import Glibc
import Testing
import WebPairings

/// `alarmctl web pairings|revoke` on a page's state directory, as root on the device.
@Suite struct WebCommandTests {
    static let alice = Pairing(id: "a1b2c3d4e5f6", name: "Alice's phone", token: "secret-a", created: Date(timeIntervalSince1970: 1_795_000_000), lastSeen: Date(timeIntervalSince1970: 1_795_000_600))
    static let bob = Pairing(id: "0f9e8d7c6b5a", name: "Bob", token: "secret-b", created: Date(timeIntervalSince1970: 1_795_001_000), lastSeen: Date(timeIntervalSince1970: 1_795_001_000))

    func run(_ arguments: [String]) async throws -> ChildProcess.Result {
        try await ChildProcess.run(ChildProcess.product("alarmctl"), arguments, environment: ["TZ": "UTC"])
    }

    @Test func listsAndRevokesWithoutShowingTokens() async throws {
        let directory = try TemporaryDirectory()
        try PairingsFile.write([Self.alice, Self.bob], in: directory.path)
        let listed = try await run(["web", "pairings", "--state-dir", directory.path])
        #expect(listed.exitStatus == 0)
        #expect(listed.standardOutput.contains("a1b2c3d4e5f6  Alice's phone"))
        #expect(!listed.standardOutput.contains("secret"))
        let json = try await run(["web", "pairings", "--json", "--state-dir", directory.path])
        #expect(json.standardOutput.contains(#""name" : "Bob""#) && !json.standardOutput.contains("secret"))
        let revoked = try await run(["web", "revoke", "0f9e8d7c6b5a", "--state-dir", directory.path])
        #expect(revoked.exitStatus == 0)
        #expect(revoked.standardOutput == "Revoked Bob (0f9e8d7c6b5a).\n")
        #expect(try PairingsFile.read(in: directory.path) == [Self.alice])
        let unknown = try await run(["web", "revoke", "nope", "--state-dir", directory.path])
        #expect(unknown.exitStatus == 1)
        #expect(unknown.standardError.contains("no paired browser nope"))
        #expect(try PairingsFile.read(in: directory.path) == [Self.alice])
    }

    @Test func aMissingOrDamagedBookIsAClearError() async throws {
        let directory = try TemporaryDirectory()
        let none = try await run(["web", "pairings", "--state-dir", directory.path + "/missing"])
        #expect(none.exitStatus == 69)
        #expect(none.standardError.contains("cannot open"))
        // Being root does not open a directory that is not there: the error says what would.
        #expect(!none.standardError.contains("run as root"))
        #expect(none.standardError.contains("pass its --state-dir"))
        let empty = try await run(["web", "pairings", "--state-dir", directory.path])
        #expect(empty.standardOutput == "No paired browsers.\n")
        try TestFiles.write(Array("{not json".utf8), to: PairingsFile.path(in: directory.path))
        let damaged = try await run(["web", "revoke", "x", "--state-dir", directory.path])
        #expect(damaged.exitStatus == 1)
        #expect(damaged.standardError.contains("is unreadable"))
    }
}
