import AlarmEngine
import AlarmModel
import FoundationEssentials

/// A time that nothing has confirmed (``TimeSource/restored``, ``TimeSource/unset``) on the clock
/// screen: the time blinks, and "Clock not verified" shows while an alarm is near.
extension ScreenRenderer {
    /// Shown with the clock while an alarm is due within ``unverifiedWarningLead`` and nothing
    /// has confirmed the time (on 2 rows in turn with the next alarm, a second each); 16 columns
    /// take the shorter form.
    public static let unverifiedText = "Clock not verified"
    public static let unverifiedShortText = "Clock unverified"

    var unverifiedText: String {
        size.columns >= Self.unverifiedText.count ? Self.unverifiedText : Self.unverifiedShortText
    }
    public static let unverifiedWarningLead: TimeInterval = 12 * 3600

    /// The time blinks, as clocks blink 12:00, while only a saved clock file (or nothing) set it:
    /// shown in even seconds, blank in odd ones.
    func blinksTime(_ snapshot: DeviceSnapshot) -> Bool {
        guard snapshot.isClockTrusted, let source = snapshot.timeSource else { return false }
        return !source.isConfirmed
    }

    func showsUnverifiedWarning(_ snapshot: DeviceSnapshot) -> Bool {
        guard blinksTime(snapshot), let next = snapshot.nextAlarm,
              next.dueDate.timeIntervalSince(snapshot.now) <= Self.unverifiedWarningLead
        else { return false }
        // A tall display has a row of its own for it; two rows take turns with the next alarm.
        return isTall || isOddSecond(snapshot.now)
    }

    func isOddSecond(_ date: Date) -> Bool {
        Int(date.timeIntervalSince1970.rounded(.down)) % 2 != 0
    }

    func nextSecond(after snapshot: DeviceSnapshot) -> Date {
        Date(timeIntervalSince1970: snapshot.now.timeIntervalSince1970.rounded(.down) + 1)
    }

}
