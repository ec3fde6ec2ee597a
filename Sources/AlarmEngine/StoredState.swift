import AlarmKitCore
import AlarmModel
import FoundationEssentials

/// Everything the engine keeps across restarts: the scheduler's alarms and missed-alarm records,
/// and every client's authorization.
public struct StoredState: Codable, Hashable, Sendable {
    public var scheduler: SchedulerSnapshot
    public var authorizations: [AuthorizationRecord]
    /// When this state was written, on the wall clock.
    public var savedAt: Date

    public init(scheduler: SchedulerSnapshot = SchedulerSnapshot(), authorizations: [AuthorizationRecord] = [], savedAt: Date) {
        self.scheduler = scheduler
        self.authorizations = authorizations
        self.savedAt = savedAt
    }
}

public struct AuthorizationRecord: Codable, Hashable, Sendable {
    public var client: ClientID
    public var state: AlarmManager.AuthorizationState

    public init(client: ClientID, state: AlarmManager.AuthorizationState) {
        self.client = client
        self.state = state
    }
}
