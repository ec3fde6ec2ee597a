import AlarmAppliance
import AlarmControl
import AlarmHardware
import AlarmEngine
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import FoundationEssentials

/// The daemon's own operations on the control socket, beside the AlarmKit ones.
public enum DaemonOperations {
    public struct HistoryParameters: Decodable {
        /// Everyone's (administrators only); default the caller's.
        public var all: Bool?
    }

    /// `alarmRecords`' parameters: `history`'s, and optionally one alarm.
    public struct RecordsParameters: Decodable {
        /// Everyone's (administrators only); default the caller's.
        public var all: Bool?
        /// Only this alarm (an empty list if it is not among them): what `alarmctl schedule`
        /// shows of the alarm it just set, without fetching and decoding every other one.
        public var id: Alarm.ID?
    }

    /// `settings`' answer: the household settings, and how the display writes times (the
    /// configuration's `[display] clock`), so a client shows times as the clock does.
    struct SettingsAnswer: Encodable, Sendable {
        var settings: HouseholdSettings
        var clock24h: Bool

        func encode(to encoder: any Encoder) throws {
            try settings.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(clock24h, forKey: .clock24h)
        }

        enum Key: String, CodingKey { case clock24h }
    }

    /// `deviceAction`'s parameters: whose alarm, which, and `stop` or `countdown` (snooze).
    public struct DeviceActionParameters: Decodable {
        public var owner: UInt32
        public var id: Alarm.ID
        public var action: AlarmAction
    }

    /// `trySound`'s parameters: the volume to hear.
    public struct TrySoundParameters: Decodable {
        public var volumeDB: Double
    }

    /// `requestPairing`'s parameters: the phone's name and the code it shows, both on the display.
    public struct PairingParameters: Decodable {
        public var name: String
        public var code: String
    }

    /// `requestPairing`'s answer: `allowed` (STOP and SNOOZE held together), `refused` (STOP),
    /// `unanswered`, `withdrawn` (an alarm rang first: ask again), or `tooSoon` with
    /// `retryAfter`, the seconds until the display may ask about a phone again.
    struct PairingAnswer: Encodable, Sendable {
        var answer: String
        var retryAfter: Int?
    }

    /// Puts the household's `settings` into effect on the running clock: the volume and
    /// crescendo from the next alert on, and how long an alert rings, the one ringing included.
    public static func putIntoEffect(_ settings: HouseholdSettings, appliance: Appliance, runtime: AlarmRuntime) async {
        await appliance.setSound(volume: settings.volumeDB, crescendo: settings.crescendo)
        await runtime.setAutoSilence(settings.autoSilenceSeconds)
    }

    /// The daemon's own operations but `status` (it needs the board's parts: alarmd adds it).
    public static func handlers(
        runtime: AlarmRuntime, appliance: Appliance, settings: HouseholdSettingsFile
    ) -> [String: ControlServer.Handler] {
        var handlers: [String: ControlServer.Handler] = [
            // Full records (titles, countdown ends) for alarmctl's list, show and watch: the
            // AlarmKit `Alarm` carries neither.
            "alarmRecords": .init(requiresAdministrator: false) { call in
                let parameters = try call.request.parameters(RecordsParameters.self)
                let all = parameters.all == true
                if all, !call.peer.isAdministrator {
                    throw ControlRequestError(
                        id: call.request.id, .forbidden, "only root and the admin group see everyone's alarms")
                }
                let visible = { (record: AlarmRecord) in all || record.owner == call.peer.client }
                if let id = parameters.id {
                    // Everyone's alarms with this id (ids are each client's own), or the caller's one.
                    let records = all
                        ? await runtime.allRecords().filter { $0.id == id }
                        : await runtime.record(for: AlarmKey(owner: call.peer.client, id: id)).map { [$0] } ?? []
                    return records
                }
                return await runtime.allRecords().filter(visible)
            },
            "history": .init(requiresAdministrator: false) { call in
                let parameters = try call.request.parameters(HistoryParameters.self)
                if parameters.all == true {
                    guard call.peer.isAdministrator else {
                        throw ControlRequestError(
                            id: call.request.id, .forbidden, "only root and the admin group see everyone's history")
                    }
                    return await runtime.history(for: nil)
                }
                return await runtime.history(for: ClientID(rawValue: call.peer.uid))
            },
        ]
        // The household's settings: everyone reads them (a client offers the default snooze);
        // administrators (the phone page) change them, and try a volume before keeping it.
        handlers["settings"] = .init(requiresAdministrator: false) { call in
            _ = try call.request.parameters(NoParameters.self)
            let clock = await appliance.settings.clockFormat
            return SettingsAnswer(settings: settings.settings, clock24h: clock == .twentyFourHour)
        }
        handlers["setSettings"] = .init(requiresAdministrator: true) { call in
            let new = try call.request.parameters(HouseholdSettings.self)
            do {
                try settings.change(to: new)
            } catch let error as SettingsError {
                throw ControlRequestError(id: call.request.id, .malformed, error.description)
            } catch {
                throw ControlError(.storageFailure, "the settings could not be saved: \(error)")
            }
            await putIntoEffect(new, appliance: appliance, runtime: runtime)
            return new
        }
        handlers["trySound"] = .init(requiresAdministrator: true) { call in
            let parameters = try call.request.parameters(TrySoundParameters.self)
            guard parameters.volumeDB.isFinite, (-60...0).contains(parameters.volumeDB) else {
                throw ControlRequestError(id: call.request.id, .malformed, "volumeDB must be from -60 to 0")
            }
            do {
                guard try await appliance.playSample(volume: parameters.volumeDB) else {
                    throw ControlError(.busy, "an alarm is ringing")
                }
            } catch let error as HardwareError {
                throw ControlError(.serviceUnavailable, "no sound: \(error)")
            }
            return JSONValue.null
        }
        // STOP and SNOOZE as the device's buttons give them, on any client's ringing alarm: the
        // phone page's big buttons silence whatever rings, whoever set it, and deliver the
        // intents those buttons carry. `stop` also ends a countdown (a timer, a snooze);
        // `countdown` is the secondary button when it snoozes or repeats.
        handlers["deviceAction"] = .init(requiresAdministrator: true) { call in
            let parameters = try call.request.parameters(DeviceActionParameters.self)
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
            return JSONValue.null
        }
        // The sound files an alarm may name: the WAV files of the sounds directory.
        handlers["sounds"] = .init(requiresAdministrator: false) { call in
            _ = try call.request.parameters(NoParameters.self)
            let directory = await appliance.settings.soundsDirectory
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            return names.filter { $0.lowercased().hasSuffix(".wav") && !$0.hasPrefix(".") }.sorted()
        }
        // The phone page (alarm-web, an administrator) asks the person at the clock whether a
        // browser may use it. The answer comes within ApplianceSettings.authorizationTimeout.
        handlers["requestPairing"] = .init(requiresAdministrator: true) { call in
            let parameters = try call.request.parameters(PairingParameters.self)
            guard (1...32).contains(parameters.name.count),
                  !parameters.name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw ControlRequestError(id: call.request.id, .malformed, "\"name\" must be 1 to 32 characters on one line")
            }
            guard (4...8).contains(parameters.code.count), parameters.code.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw ControlRequestError(id: call.request.id, .malformed, "\"code\" must be 4 to 8 digits")
            }
            switch await appliance.requestPairing(named: parameters.name, code: parameters.code) {
            case .allowed: return PairingAnswer(answer: "allowed")
            case .refused: return PairingAnswer(answer: "refused")
            case .unanswered: return PairingAnswer(answer: "unanswered")
            case .withdrawn: return PairingAnswer(answer: "withdrawn")
            case .tooSoon(let retryAfter):
                return PairingAnswer(answer: "tooSoon", retryAfter: Int((retryAfter / .seconds(1)).rounded(.up)))
            }
        }
        return handlers
    }
}
