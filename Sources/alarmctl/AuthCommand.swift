import AlarmClient
import AlarmKitCore
import AlarmProtocol
import ArgumentParser
import LinuxSupport

struct AuthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth",
        abstract: "Authorization to set alarms.",
        discussion: """
            Each user needs the device owner's permission before their first alarm, as AlarmKit \
            apps do; root and the administrators' group always have it.
            """,
        subcommands: [Request.self, Status.self, Grant.self, Revoke.self]
    )

    struct Request: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ask the person at the device to allow you to set alarms.",
            discussion: """
                If you have not been asked before, the device shows the question for up to 60 \
                seconds: STOP and SNOOZE held together allow, STOP denies. Prints the resulting state (authorized, denied, \
                notDetermined); exit status 0 only if authorized, else 1.
                """
        )

        @OptionGroup var connection: SocketOptions

        func run() async throws {
            let session = try await connection.connect()
            defer { session.close() }
            try await session.announceAuthorizationPrompt()
            let state = try await session.call { try await $0.requestAuthorization() }
            print(state.rawValue)
            guard state == .authorized else {
                throw CommandFailure.refused(AlarmOperationError.notAuthorized(state).description)
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print your authorization: authorized, denied or notDetermined.",
            discussion: "--all (administrators) lists every user's recorded authorization instead."
        )

        @Flag(help: "Every recorded user (administrators only).")
        var all = false

        @OptionGroup var connection: SocketOptions

        func run() async throws {
            let session = try await connection.connect()
            defer { session.close() }
            guard all else {
                print(try await session.call { try await $0.authorizationState() }.rawValue)
                return
            }
            let authorizations = try await session.call { try await $0.authorizations() }
            var table = TextTable(header: ["UID", "USER", "STATE"])
            for entry in authorizations {
                table.append([String(entry.uid), UserNames.name(of: entry.uid) ?? "-", entry.state.rawValue])
            }
            print(table.text, terminator: "")
        }
    }

    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Allow a user to set alarms (administrators only).")

        @OptionGroup var arguments: UserArguments

        func run() async throws {
            try await arguments.set(.authorized)
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop a user from setting alarms (administrators only).",
            discussion: "Their existing alarms stay; new ones are refused.")

        @OptionGroup var arguments: UserArguments

        func run() async throws {
            try await arguments.set(.denied)
        }
    }

    /// `grant` and `revoke`: a user, and the authorization to record for them.
    struct UserArguments: ParsableArguments {
        @Argument(help: ArgumentHelp("A user name or uid.", valueName: "USER"))
        var user: String

        @OptionGroup var connection: SocketOptions

        func set(_ state: AlarmManager.AuthorizationState) async throws {
            let uid = try UserNames.uid(of: user)
            let session = try await connection.connect()
            defer { session.close() }
            try await session.call { try await $0.setAuthorization(state, forUID: uid) }
            print("\(TerminalText.escaped(UserNames.describe(uid))): \(state.rawValue)")
        }
    }
}
