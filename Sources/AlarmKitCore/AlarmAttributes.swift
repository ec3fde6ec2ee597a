import FoundationEssentials

/// Extra data a client attaches to its alarms and gets back with them.
///
/// The engine stores it as JSON and never interprets it.
public protocol AlarmMetadata: Codable, Hashable, Sendable {}

/// Everything the device needs to present an alarm: the presentation, the client's metadata
/// and a tint colour.
public struct AlarmAttributes<Metadata: AlarmMetadata>: Codable, Hashable, Sendable {
    public var presentation: AlarmPresentation
    public var metadata: Metadata?
    /// Shown on an RGB indicator LED while the alarm alerts or counts down.
    public var tintColor: Color

    public init(presentation: AlarmPresentation, metadata: Metadata? = nil, tintColor: Color) {
        self.presentation = presentation
        self.metadata = metadata
        self.tintColor = tintColor
    }

    /// AlarmKit's name for the changing part of a Live Activity: here, the presentation state.
    public typealias ContentState = AlarmPresentationState
}

/// Metadata for clients that attach none.
public struct NoAlarmMetadata: AlarmMetadata {
    public init() {}
}
