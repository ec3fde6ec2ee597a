import AlarmClient
import AlarmDaemon
import AlarmHardware
import AlarmProtocol
import CUnixSocket
import FoundationEssentials
import Glibc

/// Whether `alarmd.service` runs beside the self-test, as its control socket answers.
///
/// A running service holds the GPIO lines and draws on the display: a self-test that opened them
/// itself would find the lines busy and leave the service's screen half stale. So the socket is
/// asked first; only when nothing listens there does the self-test open the parts itself.
enum RunningService {
    /// Nothing listens on the socket (no file, or a file left by a stopped service).
    case absent
    /// The socket is there and refuses this user (`EACCES`): a service runs, out of reach.
    case refusesUser
    /// A service answered: who it takes the caller for.
    case answering(ControlClient, ControlHello)

    static func find(socket path: String) async -> RunningService {
        let descriptor = alarmd_unix_connect(path)
        guard descriptor >= 0 else {
            return -descriptor == EACCES || -descriptor == EPERM ? .refusesUser : .absent
        }
        close(descriptor)
        let client = ControlClient(path: path)
        do {
            return .answering(client, try await client.hello())
        } catch {
            // It went away between the two connects, or it is not alarmd.
            client.close()
            return .absent
        }
    }
}

/// The self-test run by the service on the parts it holds (its `selfTest` operation), one part
/// per request so a person can be asked about each; the same lines as the self-test on its own.
struct ServiceSelfTest {
    let client: ControlClient
    let only: Set<BoardPart>
    let person: TerminalPerson?
    let say: @Sendable (String) -> Void
    var showFor: Duration = .seconds(2)

    /// Why the service did not run a check, for the one line that says what to do.
    struct Refusal: Error {
        var message: String
        /// 77 for an operation only administrators may run, 75 (try again later) otherwise.
        var exitStatus: Int32
    }

    func run() async throws(Refusal) -> [PartResult] {
        var results: [PartResult] = []
        var interruption: String?
        for part in BoardPart.held where only.contains(part) {
            let result: PartResult
            if let interruption {
                result = PartResult(part: part, passed: false, detail: "not checked: " + interruption)
            } else {
                let reported = try await request(part)
                if reported.interrupted { interruption = reported.detail }
                result = await judge(reported, part: part)
            }
            SelfTestRun.sayVerdict(result, say: say)
            results.append(result)
        }
        return results
    }

    /// The service's report on `part`, confirmed by the person when there is one.
    private func judge(_ reported: SelfTestReport.Part, part: BoardPart) async -> PartResult {
        guard reported.passed else {
            let hint = reported.hint ?? reported.fault.flatMap(Self.hardwareError).map { SelfTestRun.hint(for: $0, part: part) }
            return PartResult(part: part, passed: false, detail: reported.detail, hint: reported.interrupted ? nil : hint)
        }
        switch part {
        case .led:
            return await SelfTestRun.ask(
                part, "Did the LED blink?", seen: reported.detail, unseen: "the service drove the LED but nobody saw it blink",
                hint: SelfTestAdvice.ledNotSeenHint,
                person: person)
        case .display:
            return await SelfTestRun.ask(
                part, "Did the display show \"alarmd self-test\" and four icons (bell, Zz, pause, play), then the clock again?",
                seen: reported.detail, unseen: "the service drew the pattern but it was not readable",
                hint: SelfTestAdvice.displayNotReadableHint,
                person: person)
        case .light:
            return await SelfTestRun.ask(
                part, "Did the light rise to full in four steps, then go back to what it was?", seen: reported.detail,
                unseen: "the service drove the light but nobody saw it change", hint: SelfTestAdvice.lightNotSeenHint,
                person: person)
        case .sound:
            return await SelfTestRun.ask(
                part, "Did you hear the tone?", seen: reported.detail, unseen: "the service played the tone but nobody heard it",
                hint: SelfTestAdvice.toneNotHeardHint,
                person: person)
        case .rtc:
            return PartResult(part: part, passed: true, detail: reported.detail)
        case .buttons:
            guard person != nil else {
                return PartResult(part: part, passed: true, detail: reported.detail + " (presses not checked: --non-interactive)")
            }
            return await SelfTestRun.ask(
                part, "Press STOP, then SNOOZE on the clock: did its display light up at each press?",
                seen: reported.detail + "; a person saw STOP and SNOOZE answer", unseen: "the lines are held but the presses did not show",
                hint: "a button goes between its GPIO and GND (active-low, internal pull-up): check the wiring and `stop`/`snooze` in the profile (`gpioinfo` shows the lines)",
                person: person)
        }
    }

    private func request(_ part: BoardPart) async throws(Refusal) -> SelfTestReport.Part {
        switch part {
        case .led: say("LED: the service blinks it for \(seconds(showFor)) s...")
        case .display: say("Display: watch the clock: the service shows the test pattern for \(seconds(showFor)) s, then its screen again.")
        case .light: say("Light: the service raises it to full in four steps over \(seconds(showFor)) s...")
        case .sound: say("Sound: the service plays the alarm tone for \(seconds(showFor)) s...")
        case .buttons, .rtc: break
        }
        let report: SelfTestReport
        do {
            report = try await client.selfTest(SelfTestParameters(parts: [part.rawValue], showSeconds: showFor / .seconds(1)))
        } catch let error as ControlError {
            switch error.code {
            case .forbidden:
                throw Refusal(message: error.message, exitStatus: 77)
            case .unknownOperation:
                throw Refusal(
                    message: "the running alarmd is too old to check its own parts: stop it (`sudo systemctl stop alarmd`), "
                        + "run the self-test, then `sudo systemctl start alarmd`",
                    exitStatus: 69)
            default:
                throw Refusal(message: error.message, exitStatus: 75)
            }
        } catch {
            throw Refusal(message: "the running alarmd did not answer: \(error)", exitStatus: 69)
        }
        guard let answer = report.parts.first(where: { $0.part == part.rawValue }) else {
            throw Refusal(message: "the running alarmd did not report on \(part.rawValue)", exitStatus: 69)
        }
        return answer
    }

    private static func hardwareError(_ fault: SelfTestReport.Fault) -> HardwareError? {
        HardwareError.Kind(rawValue: fault.kind).map { HardwareError($0, device: fault.device, errno: fault.errno) }
    }

    private func seconds(_ duration: Duration) -> String {
        let value = duration / .seconds(1)
        return value == value.rounded() ? "\(Int(value))" : "\(value)"
    }
}
