import AlarmTime

extension AlarmRuntime {
    /// A round trip through what wakes an alarm: this actor arms a sleep of `delay` on the
    /// engine's wall clock (the timer every alarm waits on), the clock's timer fires and delivers
    /// it, and this actor runs again.
    ///
    /// Returns `true` once all of that happened (a clock set that ends the sleep early counts:
    /// the timer delivered it), `false` if the clock cannot be slept on or the task is cancelled.
    /// Does not return while any of them hangs (the actor blocked in a system call, the timer's
    /// thread stopped): the daemon's watchdog then stops its pings. Costs the timer one wake.
    public func probeTimer(after delay: Duration) async -> Bool {
        // State of the actor read before and after the sleep, so that both hops onto it happen:
        // a hop that nothing after it needs may be optimised away.
        let revisionBefore = revision
        do {
            _ = try await clock.sleep(for: delay)
        } catch {
            return false
        }
        return revision >= revisionBefore
    }
}
