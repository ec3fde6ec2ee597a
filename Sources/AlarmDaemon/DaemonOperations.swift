import AlarmAppliance
import AlarmControl
import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmSoundFile
import FoundationEssentials

/// The daemon's own operations on the control socket, beside the AlarmKit ones: each a handler
/// for its ``ControlEndpoint``, whose parameter and answer types are the wire's.
public enum DaemonOperations {
    /// Puts the household's `settings` into effect on the running clock: the volume and
    /// crescendo from the next alert on, how long an alert rings, the one ringing included, and
    /// the night hours and the light at once (``HouseholdSettings/apply(to:_:)``, as at start).
    public static func putIntoEffect(_ settings: HouseholdSettings, appliance: Appliance, runtime: AlarmRuntime) async {
        await appliance.updateSettings { settings.apply(to: &$0) }
        await runtime.setAutoSilence(settings.autoSilenceSeconds)
        await runtime.publishDeviceSnapshot()
    }

    /// The clock's button presses by name (`stop`, `snooze`), a new stream per call: what
    /// `subscribeDevice` reports of them (``ControlServer/Configuration/buttonPresses``).
    public static func buttonPressNames(of appliance: Appliance) -> @Sendable () -> AsyncStream<String> {
        {
            let presses = appliance.buttonPresses()
            let (names, continuation) = AsyncStream.makeStream(of: String.self)
            let forwarding = Task {
                for await button in presses { continuation.yield(button.rawValue) }
                continuation.finish()
            }
            continuation.onTermination = { _ in forwarding.cancel() }
            return names
        }
    }

    /// Every operation alarmd's socket answers beyond the protocol's own; the service and the
    /// simulator serve the same, but `status` only with a report and `selfTest` only with a
    /// `board` to report on.
    ///
    /// - Parameter status: the status report as a viewer may see it (`nil`: an administrator,
    ///   every client's alarms).
    public static func handlers(
        runtime: AlarmRuntime, appliance: Appliance, settings: HouseholdSettingsFile, sounds: SoundLibrary,
        volumeScale: ClosedRange<Double> = AlarmWake.volumeRange, checkSound: (@Sendable (String) async -> String?)? = nil, status: (@Sendable (ClientID?) async -> StatusReport)?, board: SelfTestBoard?, time: TimeSetting? = nil
    ) -> ControlHandlers {
        var handlers = ControlHandlers()
        if let status {
            // The device's parts and clock for everyone; a client learns nothing of the others'
            // alarms: their count and times are theirs.
            handlers.register(.status) { call, _ in await status(call.peer.isAdministrator ? nil : call.peer.client) }
        }
        serveRecords(&handlers, runtime: runtime)
        serveSettings(&handlers, runtime: runtime, appliance: appliance, settings: settings, volumeScale: volumeScale, checkSound: checkSound)
        serveDevice(&handlers, runtime: runtime, appliance: appliance)
        serveSounds(&handlers, runtime: runtime, appliance: appliance, library: sounds, settings: settings)
        if let board { handlers.register(.selfTest, selfTestHandler(appliance: appliance, board: board)) }
        if let time { serveTime(&handlers, runtime: runtime, setting: time) }
        return handlers
    }

    /// Full records (titles, countdown ends) for alarmctl's list, show and watch, which the
    /// AlarmKit `Alarm` lacks, and the history.
    private static func serveRecords(_ handlers: inout ControlHandlers, runtime: AlarmRuntime) {
        handlers.register(.alarmRecords) { call, parameters in
            let all = parameters.all == true
            if all, !call.peer.isAdministrator {
                throw ControlRequestError(id: call.request.id, .forbidden, "only root and the admin group see everyone's alarms")
            }
            guard let id = parameters.id else {
                return await runtime.allRecords().filter { all || $0.owner == call.peer.client }
            }
            // Everyone's alarms with this id (ids are each client's own), or the caller's one.
            return all
                ? await runtime.allRecords().filter { $0.id == id }
                : await runtime.record(for: AlarmKey(owner: call.peer.client, id: id)).map { [$0] } ?? []
        }
        handlers.register(.history) { call, parameters in
            guard parameters.all == true else { return await runtime.history(for: ClientID(rawValue: call.peer.uid)) }
            guard call.peer.isAdministrator else {
                throw ControlRequestError(id: call.request.id, .forbidden, "only root and the admin group see everyone's history")
            }
            return await runtime.history(for: nil)
        }
    }

    /// The household's settings: everyone reads them (a client offers the default snooze);
    /// administrators (the phone page) change them.
    private static func serveSettings(
        _ handlers: inout ControlHandlers, runtime: AlarmRuntime, appliance: Appliance, settings: HouseholdSettingsFile,
        volumeScale: ClosedRange<Double>, checkSound: (@Sendable (String) async -> String?)?
    ) {
        handlers.register(.settings) { _, _ in
            let clock = await appliance.settings.clockFormat
            return SettingsReport(settings: settings.settings, clock24h: clock == .twentyFourHour, volumeScale: volumeScale)
        }
        handlers.register(.setSettings) { call, new in
            // A default sound is checked when it is chosen, as an alarm's is when scheduled.
            if let name = new.defaultSoundName, name != settings.settings.defaultSoundName, let checkSound,
               let reason = await checkSound(name) {
                throw ControlRequestError(id: call.request.id, .invalidConfiguration, "sound \"\(name)\" cannot ring: \(reason)")
            }
            let kept: HouseholdSettings
            do {
                kept = try settings.change(to: new)
            } catch let error as SettingsError {
                throw ControlRequestError(id: call.request.id, .malformed, error.description)
            } catch {
                throw ControlError(.storageFailure, "the settings could not be saved: \(error)")
            }
            await putIntoEffect(kept, appliance: appliance, runtime: runtime)
            return kept
        }
    }

    private static func serveDevice(_ handlers: inout ControlHandlers, runtime: AlarmRuntime, appliance: Appliance) {
        // STOP and SNOOZE as the device's buttons give them, on any client's ringing alarm: the
        // phone page's big buttons silence whatever rings, whoever set it, and deliver the
        // intents those buttons carry. `stop` also ends a countdown (a timer, a snooze);
        // `countdown` is the secondary button when it snoozes or repeats.
        handlers.register(.deviceAction) { call, parameters in
            let key = AlarmKey(owner: ClientID(rawValue: parameters.owner), id: parameters.id)
            do {
                switch parameters.action {
                case .stop:
                    try await runtime.press(.stop, on: key)
                case .countdown:
                    // A `.custom` secondary button stops the alarm: it is not the page's Snooze.
                    try await runtime.press(.secondary, on: key, requiring: .countdown)
                default:
                    throw ControlRequestError(id: call.request.id, .malformed, "\"action\" must be stop or countdown")
                }
            } catch let refusal as AlarmPressRefusal {
                throw ControlError(.invalidTransition, refusal.description)
            }
            return NullAnswer()
        }
        // The sunrise light as a bedside lamp, turned on or off by hand (the MQTT bridge).
        handlers.register(.setLight) { call, parameters in
            if let output = parameters.output, !(output.isFinite && (0...1).contains(output)) {
                throw ControlRequestError(id: call.request.id, .malformed, "\"output\" must be from 0 to 1, or null for off")
            }
            guard await appliance.setLight(byHand: parameters.output) else {
                throw ControlError(.refused, "this clock has no sunrise light")
            }
            return NullAnswer()
        }
        // The phone page (alarm-web, an administrator) asks the person at the clock whether a
        // browser may use it. The answer comes within ApplianceSettings.authorizationTimeout.
        handlers.register(.requestPairing) { call, parameters in
            guard (1...32).contains(parameters.name.count),
                  !parameters.name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw ControlRequestError(id: call.request.id, .malformed, "\"name\" must be 1 to 32 characters on one line")
            }
            guard (4...8).contains(parameters.code.count), parameters.code.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw ControlRequestError(id: call.request.id, .malformed, "\"code\" must be 4 to 8 digits")
            }
            switch await appliance.requestPairing(named: parameters.name, code: parameters.code) {
            case .allowed: return PairingReply(answer: .allowed)
            case .refused: return PairingReply(answer: .refused)
            case .unanswered: return PairingReply(answer: .unanswered)
            case .withdrawn: return PairingReply(answer: .withdrawn)
            case .tooSoon(let retryAfter):
                return PairingReply(answer: .tooSoon, retryAfter: Int((retryAfter / .seconds(1)).rounded(.up)))
            }
        }
    }
}
