import FoundationEssentials
import Glibc
import Synchronization

extension AlarmManager {
    /// The intents delivered to this client: those waiting for it at once, then each new one as a
    /// person presses an alarm's button at the device. A delivery comes again (after a
    /// reconnection, or in the next process) until one is acknowledged with ``acknowledge(_:)``.
    public var intentDeliveries: IntentDeliveries {
        IntentDeliveries(stream: backend.intentDeliveries())
    }

    public typealias IntentDeliveries = Updates<AlarmIntentDelivery>

    /// Takes a delivery before running it: `true` in exactly one process of the app (the first
    /// to ask), `false` in the others, so that two processes of one app never both run it. A
    /// process that took it runs it and then acknowledges it; if it goes away first, the
    /// delivery comes again to the app's other processes.
    public func take(_ delivery: AlarmIntentDelivery) async throws -> Bool {
        try await backend.takeIntent(delivery.id)
    }

    /// Marks a delivery handled: it is not delivered again, to this process or another.
    public func acknowledge(_ delivery: AlarmIntentDelivery) async throws {
        try await backend.acknowledgeIntent(delivery.id)
    }

    /// Runs this process's intents of `types` as the device delivers them, as the system runs an
    /// app's App Intents: each delivered intent of one of these types (by
    /// ``LiveActivityIntent/intentName``) is taken (``take(_:)``), decoded, performed, then
    /// acknowledged, one at a time in the order of the presses. Of several processes of the same
    /// app, exactly one runs each intent. Returns at once; later calls add types.
    ///
    /// An intent of a type not named here is left for another process of the same user (such as
    /// `alarmctl watch --json --acknowledge`). One whose `perform()` throws is acknowledged all the
    /// same, and its error is written to standard error: the press happened, and running it again
    /// would not make it succeed.
    public func handleIntents(_ types: any LiveActivityIntent.Type...) {
        let start = intentTypes.withLock { registered in
            for type in types { registered.types[type.intentName] = type }
            defer { registered.handling = true }
            return !registered.handling
        }
        if start {
            Task { await runIntents() }
        }
    }

    private func runIntents() async {
        // The deliveries handled lately, so that one sent again before its acknowledgement
        // arrived (a reconnection in between) is acknowledged, not run twice.
        var handled: [UUID] = []
        for await delivery in backend.intentDeliveries() {
            if !handled.contains(delivery.id) {
                guard let type = intentTypes.withLock({ $0.types[delivery.intent.name] }) else { continue }
                // Another process of the app runs it; if that one goes away first, it comes again.
                guard (try? await backend.takeIntent(delivery.id)) == true else { continue }
                do {
                    try await Self.perform(type, delivery.intent)
                } catch {
                    var message = "AlarmKit: intent \(delivery.intent.name) of alarm \(delivery.alarmID) failed: \(error)\n"
                    message.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
                }
                handled.append(delivery.id)
                if handled.count > 64 { handled.removeFirst() }
            }
            try? await backend.acknowledgeIntent(delivery.id)
        }
    }

    private static func perform<Intent: LiveActivityIntent>(_ type: Intent.Type, _ intent: AlarmIntent) async throws {
        _ = try await Intent(intent).perform()
    }

    /// The intent types ``handleIntents(_:)`` was given, and whether it runs them yet.
    struct IntentTypes: Sendable {
        var types: [String: any LiveActivityIntent.Type] = [:]
        var handling = false
    }
}
