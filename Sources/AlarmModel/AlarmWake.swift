import AlarmKitCore
import FoundationEssentials
import Glibc

/// How one alarm wakes where it differs from the household's settings: its fade-in, the
/// loudest it gets and its sunrise light's lead. A device extension to AlarmKit, set with the control socket's `setWake`
/// (alarmctl `wake`, the page's alarm form); an alarm without one, as every AlarmKit app's, wakes
/// as the household chose. Kept with the alarm, not in its definition, so a `replace` keeps it.
public struct AlarmWake: Codable, Hashable, Sendable {
    /// How long the sound takes to rise from the audible floor to ``volumeDB``, in seconds;
    /// `nil`: the household's.
    public var crescendoSeconds: Double?
    /// The loudest it gets, in dB of full scale; `nil`: the household's.
    public var volumeDB: Double?
    /// How long before it the sunrise light starts to brighten, in seconds (0: no light for this
    /// alarm); `nil`: the household's.
    public var lightLeadSeconds: Double?

    /// The fade-ins people ask for reach 45 minutes; 0 starts at the full volume.
    public static let crescendoRange: ClosedRange<Double> = 0...2_700
    /// 0 dB is the card's full scale; -60 dB is as good as silent.
    public static let volumeRange: ClosedRange<Double> = -60...0
    /// A sunrise takes up to an hour.
    public static let lightLeadRange: ClosedRange<Double> = 0...3_600

    public init(crescendoSeconds: Double? = nil, volumeDB: Double? = nil, lightLeadSeconds: Double? = nil) {
        self.crescendoSeconds = crescendoSeconds
        self.volumeDB = volumeDB
        self.lightLeadSeconds = lightLeadSeconds
    }

    /// Nothing differs from the household's.
    public var isHouseholdDefault: Bool { crescendoSeconds == nil && volumeDB == nil && lightLeadSeconds == nil }

    /// Checks the ranges; `.invalidConfiguration` names the bad field.
    public func validate() throws(AlarmOperationError) {
        if let crescendoSeconds, !(crescendoSeconds.isFinite && Self.crescendoRange.contains(crescendoSeconds)) {
            throw .invalidConfiguration(
                "wake.crescendoSeconds is \(crescendoSeconds); it must be from 0 to \(Int(Self.crescendoRange.upperBound)) s (45 minutes)")
        }
        if let volumeDB, !(volumeDB.isFinite && Self.volumeRange.contains(volumeDB)) {
            throw .invalidConfiguration("wake.volumeDB is \(volumeDB); it must be from -60 to 0 dB")
        }
        if let lightLeadSeconds, !(lightLeadSeconds.isFinite && Self.lightLeadRange.contains(lightLeadSeconds)) {
            throw .invalidConfiguration("wake.lightLeadSeconds is \(lightLeadSeconds); it must be from 0 to 3600 s (an hour)")
        }
    }
}

/// A volume as people read it, 0 to 100 %, and the dB of full scale it stands for: the mapping
/// `alsamixer` shows for a card's dB range (a percentage of 10^(dB/60) between the range's floor
/// and top), which follows loudness far more evenly than a percentage of the dB range: over the
/// default scale, -60 to 0 dB, 50 % is -15.6 dB and 77 % the default -6 dB.
///
/// The scale is the card's own where the board sets the alarm volume on its mixer control
/// (``scale(forCard:)``: that control's range within ``AlarmWake/volumeRange``), so a percentage
/// on the page is the one `alsamixer` shows for that card; else ``AlarmWake/volumeRange``.
public enum VolumePercent {
    /// The percentage, 0 to 100, rounded to a whole percent, of `decibels` (clamped to `scale`).
    public static func percent(decibels: Double, scale: ClosedRange<Double> = AlarmWake.volumeRange) -> Int {
        let floor = floorAmplitude(scale)
        let clamped = min(max(decibels, scale.lowerBound), scale.upperBound)
        let normalized = (pow(10, (clamped - scale.upperBound) / 60) - floor) / (1 - floor)
        return Int((normalized * 100).rounded())
    }

    /// The dB of full scale of `percent` (clamped to 0...100) on `scale`, to a tenth of a dB.
    public static func decibels(percent: Double, scale: ClosedRange<Double> = AlarmWake.volumeRange) -> Double {
        let floor = floorAmplitude(scale)
        let fraction = min(max(percent, 0), 100) / 100
        let decibels = scale.upperBound + 60 * log10(floor + fraction * (1 - floor))
        return min(max((decibels * 10).rounded() / 10, scale.lowerBound), scale.upperBound)
    }

    /// The scale for a card whose alarm volume is set on a mixer control of `range` dB: the part
    /// of it alarmd's volumes can take (``AlarmWake/volumeRange``), or that whole range when the
    /// two share less than 6 dB (a control that only boosts: the software gain does the rest).
    public static func scale(forCard range: ClosedRange<Double>?) -> ClosedRange<Double> {
        guard let range else { return AlarmWake.volumeRange }
        let lower = max(range.lowerBound, AlarmWake.volumeRange.lowerBound)
        let upper = min(range.upperBound, AlarmWake.volumeRange.upperBound)
        guard upper - lower >= 6 else { return AlarmWake.volumeRange }
        return lower...upper
    }

    private static func floorAmplitude(_ scale: ClosedRange<Double>) -> Double {
        pow(10, (scale.lowerBound - scale.upperBound) / 60)
    }
}
