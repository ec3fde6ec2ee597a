@testable import AlarmEngine

extension AlarmRuntime {
    /// Waits for a read of the store under way and the save of time-driven changes, if one is
    /// due: what a test awaits before it looks at the disk or the store's health.
    func settleStore() async {
        if let read = unreadStore?.readStarted { await read.value }
        if case .saveQueued(let job, _) = durability { await job.value }
    }
}
