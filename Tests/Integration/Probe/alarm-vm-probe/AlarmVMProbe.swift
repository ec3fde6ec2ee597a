import ArgumentParser
import Glibc
import VMProbeKit

/// `alarm-vm-probe`: the measuring tool of the QEMU integration tests, run inside the guest.
///
/// Every command prints one line of JSON on stdout (the keys are listed in
/// Tests/Integration/Probe/README.md). Every instant, given or printed, is `CLOCK_REALTIME` as
/// decimal seconds (`1764000000.123456`). Exit status: 0 done; 1 failed (one line on stderr,
/// `alarm-vm-probe: <message>`); 64 bad arguments.
@main
struct AlarmVMProbe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alarm-vm-probe",
        abstract: "Measure alarmd's sound, LED, buttons and LCD inside the test VM.",
        discussion: """
            Instants are CLOCK_REALTIME in decimal seconds (1764000000.123456), printed with 6 \
            decimals. Each command prints one line of JSON on stdout. Exit status: 0 done; 1 \
            failed (one line on stderr); 64 bad arguments.
            """,
        subcommands: [
            RecordAudio.self, Sound.self, Silence.self, Press.self, RecordLED.self, LED.self, LCD.self,
            WaitFile.self, ClockOffset.self, AddVolume.self, Mixer.self,
        ]
    )

    /// Errors are printed here as exactly one line, rather than by ArgumentParser with usage lines.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let failure as ProbeError {
            fail(failure.message, status: 1)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                writeAll(fullMessage(for: error) + "\n", to: 1)
                Glibc.exit(0)
            }
            let message = self.message(for: error)
                .split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? "\(error)"
            fail(message, status: code.rawValue == 0 ? 1 : code.rawValue)
        }
    }
}

/// Prints `alarm-vm-probe: <message>` on stderr and exits with `status`.
func fail(_ message: String, status: Int32) -> Never {
    writeAll("alarm-vm-probe: \(message)\n", to: 2)
    exit(status)
}

/// Prints the command's one line of JSON.
func output(_ object: JSONObject) {
    writeAll(object.text + "\n", to: 1)
}

/// Writes all of `text` to `descriptor`, across short writes and interruptions.
func writeAll(_ text: String, to descriptor: Int32) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        // SAFETY: the bytes outlive the call and hold `count - offset` bytes from `offset`.
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }
        offset += written
    }
}
