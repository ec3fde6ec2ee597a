import AlarmDaemon
import AlarmTestKit
import Glibc
import Testing

@Suite struct SystemdNotifierTests {
    @Test func messagesArriveOnASocketFile() throws {
        let directory = try TemporaryDirectory()
        let receiver = try DatagramReceiver(path: directory.path + "/notify")
        let notifier = try SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.address])
        #expect(notifier.address == .path(directory.path + "/notify"))

        try notifier.send(.ready, .status("Waiting for a trusted clock"))
        try notifier.send(.watchdog)
        try notifier.send(.status("two\nlines"))
        try notifier.send(.stopping)
        try notifier.send([])
        #expect(receiver.pending() == [
            "READY=1\nSTATUS=Waiting for a trusted clock", "WATCHDOG=1", "STATUS=two lines", "STOPPING=1",
        ])
    }

    @Test func messagesArriveOnAnAbstractName() throws {
        let name = "alarmd-test-\(getpid())-notifier"
        let receiver = try DatagramReceiver(abstractName: name)
        let notifier = try SystemdNotifier(environment: ["NOTIFY_SOCKET": "@" + name])
        #expect(notifier.address == .abstract(name))
        #expect(notifier.address?.description == "@" + name)
        try notifier.send(.ready)
        try notifier.send(.watchdog)
        #expect(receiver.pending() == ["READY=1", "WATCHDOG=1"])
    }

    @Test func withoutNotifySocketNothingIsSent() throws {
        for environment in [[:], ["NOTIFY_SOCKET": ""]] {
            let notifier = try SystemdNotifier(environment: environment)
            #expect(notifier.address == nil)
            try notifier.send(.ready, .status("nobody listens"))
        }
    }

    @Test(arguments: ["notify", "run/systemd/notify", "@", "vsock:2:1234", "/" + String(repeating: "x", count: 107), "@" + String(repeating: "x", count: 108)])
    func anInvalidNotifySocketIsAnError(value: String) {
        #expect(throws: SystemdNotifyError("NOTIFY_SOCKET \"\(value)\" is neither an absolute path nor an abstract name (@name) of at most 107 bytes")) {
            try SystemdNotifier(environment: ["NOTIFY_SOCKET": value])
        }
    }

    @Test func theLongestAddressesWork() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/" + String(repeating: "n", count: 107 - directory.path.utf8.count - 1)
        let receiver = try DatagramReceiver(path: path)
        try SystemdNotifier(environment: ["NOTIFY_SOCKET": path]).send(.ready)
        #expect(receiver.pending() == ["READY=1"])

        let name = "alarmd-test-\(getpid())-" + String(repeating: "a", count: 107 - "alarmd-test-\(getpid())-".utf8.count)
        let abstract = try DatagramReceiver(abstractName: name)
        try SystemdNotifier(environment: ["NOTIFY_SOCKET": "@" + name]).send(.ready)
        #expect(abstract.pending() == ["READY=1"])
    }

    @Test func aSocketNobodyListensOnIsAnErrorToLog() throws {
        let directory = try TemporaryDirectory()
        let notifier = try SystemdNotifier(environment: ["NOTIFY_SOCKET": directory.path + "/gone"])
        #expect(throws: SystemdNotifyError("cannot notify systemd at \(directory.path)/gone: No such file or directory")) {
            try notifier.send(.ready)
        }
        let path: String
        do {
            let receiver = try DatagramReceiver(path: directory.path + "/closed")
            path = receiver.address
        }
        #expect(throws: SystemdNotifyError("cannot notify systemd at \(path): Connection refused")) {
            try SystemdNotifier(environment: ["NOTIFY_SOCKET": path]).send(.stopping)
        }
    }

    @Test func theWatchdogIntervalComesFromTheEnvironment() throws {
        let pid = getpid()
        #expect(try SystemdNotifier.watchdogInterval(environment: [:]) == nil)
        #expect(try SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000"]) == .seconds(30))
        #expect(try SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(pid)"]) == .seconds(30))
        #expect(try SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(pid + 1)"]) == nil)
        #expect(try SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "500", "WATCHDOG_PID": "7"], processID: 7) == .microseconds(500))
        #expect(throws: SystemdNotifyError("WATCHDOG_USEC \"0\" is not a positive number of microseconds")) {
            try SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "0"])
        }
        #expect(throws: SystemdNotifyError("WATCHDOG_USEC \"30s\" is not a positive number of microseconds")) {
            try SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30s"])
        }
        #expect(throws: SystemdNotifyError("WATCHDOG_PID \"self\" is not a process ID")) {
            try SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "1000", "WATCHDOG_PID": "self"])
        }
    }
}
