/// The remaining time of a countdown as the display shows it: `mm:ss` under an hour (`09:05`),
/// `h:mm:ss` from an hour on (`1:02:03`).
///
/// Seconds are rounded up, as a kitchen timer does: the display reads `00:01` until the very end
/// and never `00:00` while still counting, and a fresh 5-minute timer reads `05:00`.
public enum RemainingTimeText {
    public static func format(_ remaining: Double) -> String {
        let total = remaining.isFinite ? max(Int(remaining.rounded(.up)), 0) : 0
        let hours = total / 3600, minutes = total / 60 % 60, seconds = total % 60
        if hours > 0 {
            return "\(hours):\(twoDigits(minutes)):\(twoDigits(seconds))"
        }
        return "\(twoDigits(minutes)):\(twoDigits(seconds))"
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
