import AlarmKitCore

extension AlarmManager {
    /// The client's list, awaited: the first list of a new subscription. Tests whose daemon runs
    /// in the test's own process use it instead of the synchronous ``AlarmManager/alarms``,
    /// which blocks a thread of the cooperative pool that the in-process daemon needs too.
    public func awaitedAlarms() async -> [Alarm] {
        for await list in alarmUpdates { return list }
        return []
    }

    /// The client's authorization, awaited, for the same reason.
    public func awaitedAuthorizationState() async -> AuthorizationState {
        for await state in authorizationUpdates { return state }
        return .notDetermined
    }
}
