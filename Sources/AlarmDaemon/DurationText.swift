import AlarmBoard
import AlarmTime
import TOMLConfig

extension ConfigType where Value == Duration {
    /// A duration string within `range` (`"9m"`, `"1h30m"`); a bare `0` is accepted as zero.
    public static func duration(in range: ClosedRange<Duration>) -> ConfigType<Duration> {
        let bounds = "from \(DurationText.format(range.lowerBound)) to \(DurationText.format(range.upperBound))"
        return ConfigType(expected: "a duration \(bounds), like \"9m\", \"90s\" or \"1h30m\"") { value in
            let duration: Duration
            switch value {
            case .string(let text):
                guard let parsed = DurationText.parse(text) else {
                    return .failure(ConfigRefusal("\(value) is not a duration; write it like \"9m\", \"90s\", \"1h30m\" or \"500ms\""))
                }
                duration = parsed
            case .integer(0):
                duration = .zero
            case .integer(let number):
                return .failure(ConfigRefusal("a duration needs a unit: write \"\(number)s\" or \"\(number)m\", in quotes"))
            default:
                return .failure(ConfigType<Duration>.duration(in: range).mismatch(value))
            }
            guard range.contains(duration) else {
                return .failure(ConfigRefusal("must be \(bounds), found \(value)"))
            }
            return .success(duration)
        }
    }
}
