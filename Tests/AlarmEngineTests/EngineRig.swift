import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmSimulator
import AlarmTestKit
import AlarmTime
import FoundationEssentials
import Logging
import Synchronization
import Testing

@testable import AlarmEngine

/// A running engine on a manual clock and zone, with its store in a temporary directory.
///
/// ```swift
/// let rig = try EngineRig(now: Fixture.at("2026-11-23T06:59:00+01:00"))
/// try await rig.running {
///     let manager = rig.manager()
///     ...
/// }
/// ```
final class EngineRig: Sendable {
    let clock: ManualWallClock
    let zones: ManualTimeZoneProvider
    let directory: TemporaryDirectory
    let policy: EnginePolicy
    let clockTrust: ClockTrustPolicy
    let authorizer: any AuthorizationPrompter
    let runtime: AlarmRuntime

    init(
        now: Date, zone: TimeZoneRules = Fixture.berlin, policy: EnginePolicy = .default,
        clockTrust: ClockTrustPolicy = .always, authorizer: any AuthorizationPrompter = FixedAuthorization(.authorized),
        directory: TemporaryDirectory? = nil
    ) throws {
        clock = ManualWallClock(now: now)
        zones = ManualTimeZoneProvider(zone)
        self.directory = try directory ?? TemporaryDirectory()
        self.policy = policy
        self.clockTrust = clockTrust
        self.authorizer = authorizer
        runtime = try Self.makeRuntime(
            directory: self.directory.path, clock: clock, zones: zones, policy: policy, clockTrust: clockTrust,
            authorizer: authorizer)
    }

    static let logger = Logger(label: "engine-test", factory: { _ in SwiftLogNoOpLogHandler() })

    static func makeRuntime(
        directory: String, clock: ManualWallClock, zones: ManualTimeZoneProvider, policy: EnginePolicy,
        clockTrust: ClockTrustPolicy, authorizer: any AuthorizationPrompter
    ) throws -> AlarmRuntime {
        try AlarmRuntime(
            configuration: .init(policy: policy, clockTrust: clockTrust, storeDirectory: directory),
            clock: clock, timeZones: zones, authorizer: authorizer, logger: logger)
    }

    /// A second engine on the same store, clock and zone: the process restarted.
    func restarted() throws -> AlarmRuntime {
        try Self.makeRuntime(
            directory: directory.path, clock: clock, zones: zones, policy: policy, clockTrust: clockTrust,
            authorizer: authorizer)
    }

    func manager(_ client: ClientID = Fixture.owner) -> AlarmManager {
        runtime.manager(for: client)
    }

    /// Runs `body` while the engine's timer and zone watch run, then stops them.
    func running(_ runtime: AlarmRuntime? = nil, _ body: () async throws -> Void) async throws {
        let engine = runtime ?? self.runtime
        let task = Task { await engine.run() }
        defer { task.cancel() }
        try await body()
        task.cancel()
        await task.value
    }
}

/// Counts prompts and answers each with a scripted decision once released.
final class ScriptedPrompter: AuthorizationPrompter {
    private let state = Mutex<(asked: Int, decision: AlarmManager.AuthorizationState)>((0, .notDetermined))

    init(answer: AlarmManager.AuthorizationState) {
        state.withLock { $0.decision = answer }
    }

    var timesAsked: Int { state.withLock { $0.asked } }

    func requestAuthorization(for client: ClientID) async -> AlarmManager.AuthorizationState {
        state.withLock { state in
            state.asked += 1
            return state.decision
        }
    }
}

extension AsyncIteratorProtocol where Failure == Never {
    /// The next element of a sequence that cannot fail (`next()` is the throwing legacy requirement).
    mutating func nextElement() async -> Element? {
        await next(isolation: nil)
    }
}
