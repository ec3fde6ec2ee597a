import Synchronization
import Testing

@testable import AlarmEngine

/// The states the runtime publishes per client (alarm lists) are built only while someone
/// follows them, and a subscriber still gets the current state first and every later one once.
@Suite struct OnDemandBroadcasterTests {
    /// Counts the states built, and makes each one distinct.
    final class Builder: Sendable {
        private let count = Mutex(0)
        var built: Int { count.withLock { $0 } }

        func build(_ name: String) -> String {
            count.withLock { $0 += 1 }
            return name
        }
    }

    @Test func aStateNobodyFollowsIsNeverBuilt() async {
        let broadcaster = OnDemandBroadcaster<Int, String>()
        let builder = Builder()
        broadcaster.publish(for: 1) { builder.build("one") }
        broadcaster.publish(for: 1) { builder.build("two") }
        #expect(builder.built == 0)

        var requests = 0
        var stream = broadcaster.subscribe(1) { requests += 1 }.makeAsyncIterator()
        #expect(requests == 1)
        broadcaster.fill(1) { builder.build("current") }
        #expect(await stream.next() == "current")
        broadcaster.publish(for: 1) { builder.build("changed") }
        #expect(await stream.next() == "changed")
        #expect(builder.built == 2)
        // Another key nobody follows: still nothing built.
        broadcaster.publish(for: 2) { builder.build("other") }
        #expect(builder.built == 2)
    }

    @Test func aChangeBeforeTheFillIsTheFirstStateAndTheFillSendsNothingMore() async {
        let broadcaster = OnDemandBroadcaster<Int, String>()
        let builder = Builder()
        var stream = broadcaster.subscribe(1) {}.makeAsyncIterator()
        broadcaster.publish(for: 1) { builder.build("changed") }
        broadcaster.fill(1) { builder.build("filled") }
        broadcaster.publish(for: 1) { builder.build("changed again") }
        #expect(await stream.next() == "changed")
        #expect(await stream.next() == "changed again")
        #expect(builder.built == 2)
    }

    @Test func aSubscriberWhileTheStateIsCurrentGetsItAtOnceAndAFollowerGetsNothingTwice() async {
        let broadcaster = OnDemandBroadcaster<Int, String>()
        var first = broadcaster.subscribe(1) {}.makeAsyncIterator()
        broadcaster.fill(1) { "current" }
        #expect(await first.next() == "current")

        var requests = 0
        var second = broadcaster.subscribe(1) { requests += 1 }.makeAsyncIterator()
        #expect(requests == 0)
        #expect(await second.next() == "current")
        // A fill with nobody waiting (the second subscriber's, had it asked) sends nothing.
        broadcaster.fill(1) { "stale" }
        broadcaster.publish(for: 1) { "changed" }
        #expect(await first.next() == "changed")
        #expect(await second.next() == "changed")
    }

    @Test func aStateIsForgottenWhenItChangesWithNobodyFollowing() async {
        let broadcaster = OnDemandBroadcaster<Int, String>()
        var first: AsyncStream<String>.Iterator? = broadcaster.subscribe(1) {}.makeAsyncIterator()
        broadcaster.fill(1) { "current" }
        #expect(await first?.next() == "current")
        first = nil  // the stream ends: nobody follows key 1 now
        broadcaster.publish(for: 1) { "changed, unseen" }

        var requests = 0
        var later = broadcaster.subscribe(1) { requests += 1 }.makeAsyncIterator()
        #expect(requests == 1)
        broadcaster.fill(1) { "rebuilt" }
        #expect(await later.next() == "rebuilt")
    }

    @Test func finishingEndsWaitingStreamsAndLaterOnes() async {
        let broadcaster = OnDemandBroadcaster<Int, String>()
        var waiting = broadcaster.subscribe(1) {}.makeAsyncIterator()
        broadcaster.finishAll()
        #expect(await waiting.next() == nil)
        var requests = 0
        var later = broadcaster.subscribe(1) { requests += 1 }.makeAsyncIterator()
        #expect(await later.next() == nil)
        #expect(requests == 0)
    }
}
