import AlarmTime
import ArgumentParser
import FoundationEssentials
import Glibc
import WebPairings

/// `alarmctl web`: the phone page's paired browsers, read from and written to alarm-web's state
/// directory (root or the alarm-web user); alarm-web notices a change at the browser's next request.
struct WebCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "List or revoke the browsers paired with the phone page.",
        subcommands: [WebPairingsCommand.self, WebRevokeCommand.self]
    )
}

struct WebStateOption: ParsableArguments {
    @Option(name: .customLong("state-dir"), help: ArgumentHelp("alarm-web's state directory.", valueName: "DIR"))
    var directory = "/var/lib/alarm-web"

    /// What to do about a state directory that cannot be opened: only a permission error is
    /// solved by being root, and root is told so only when it is not root already.
    static func hint(errno error: Int32, uid: uid_t) -> String {
        switch error {
        case EACCES where uid != 0, EPERM where uid != 0:
            "run as root, or as the alarm-web user"
        case ENOENT, ENOTDIR:
            "alarm-web has not run with this state directory; pass its --state-dir (the simulator's is named in its log)"
        default:
            "pass alarm-web's --state-dir"
        }
    }

    func pairings() throws -> [Pairing] {
        guard access(directory, X_OK) == 0 else {
            let error = errno
            throw CommandFailure(
                message: "cannot open \(directory): \(String(cString: strerror(error))) (\(Self.hint(errno: error, uid: getuid())))",
                exitStatus: error == EACCES ? CommandFailure.noPermission : CommandFailure.unavailable)
        }
        do {
            return try PairingsFile.read(in: directory)
        } catch {
            throw CommandFailure.refused("\(PairingsFile.path(in: directory)) is unreadable: \(error)")
        }
    }
}

struct WebPairingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pairings",
        abstract: "List the paired browsers.",
        discussion: """
            ID, name, when it paired and when it was last seen (at the time alarm-web last saved). \
            --json prints {"version":1,"pairings":[{"id","name","created","lastSeen"}]}.
            """
    )

    @Flag(help: "Print JSON (a stable shape for scripts).")
    var json = false

    @OptionGroup var state: WebStateOption

    func run() throws {
        let pairings = try state.pairings()
        let zone = TimeText.localZone()
        if json {
            let output = pairings.map {
                JSONOutput.WebPairings.Entry(
                    id: $0.id, name: $0.name, created: ISO8601.format($0.created, in: zone), lastSeen: ISO8601.format($0.lastSeen, in: zone))
            }
            print(JSONOutput.document(JSONOutput.WebPairings(pairings: output)), terminator: "")
            return
        }
        guard !pairings.isEmpty else {
            print("No paired browsers.")
            return
        }
        var table = TextTable(header: ["ID", "NAME", "PAIRED", "LAST SEEN"])
        for pairing in pairings {
            table.append([
                pairing.id, pairing.name, TimeText.dateAndTime(pairing.created, in: zone), TimeText.dateAndTime(pairing.lastSeen, in: zone),
            ])
        }
        print(table.text, terminator: "")
    }
}

struct WebRevokeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Revoke a paired browser: its next request is refused and it must pair again."
    )

    @Argument(help: ArgumentHelp("The pairing's id (alarmctl web pairings).", valueName: "ID"))
    var id: String

    @OptionGroup var state: WebStateOption

    func run() throws {
        var pairings = try state.pairings()
        guard let pairing = pairings.first(where: { $0.id == id }) else {
            throw CommandFailure.refused("no paired browser \(id) (alarmctl web pairings lists them)")
        }
        pairings.removeAll { $0.id == id }
        do {
            try PairingsFile.write(pairings, in: state.directory)
        } catch {
            throw CommandFailure.refused("\(error)")
        }
        print("Revoked \(pairing.name) (\(pairing.id)).")
    }
}
