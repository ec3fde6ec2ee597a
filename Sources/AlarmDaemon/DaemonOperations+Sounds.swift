import AlarmAppliance
import AlarmControl
import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmModel
import AlarmProtocol

extension DaemonOperations {
    /// How long `trySound` plays a sound file: its opening, enough to know it.
    static let soundPreviewLength: Duration = .seconds(5)

    /// The sounds: everyone lists them; administrators (the phone page, `alarmctl sounds`) add and
    /// delete the household's, and hear a volume or a sound before keeping it.
    static func serveSounds(
        _ handlers: inout ControlHandlers, runtime: AlarmRuntime, appliance: Appliance, library: SoundLibrary, settings: HouseholdSettingsFile
    ) {
        handlers.register(.sounds) { _, _ in
            await library.files(usage: [:]).map(\.name)
        }
        handlers.register(.soundFiles) { call, _ in
            // How many alarms use a sound: everyone's for administrators, else the caller's own
            // (a client learns nothing of the others' alarms, as in `status`).
            let records = await runtime.allRecords().filter { call.peer.isAdministrator || $0.owner == call.peer.client }
            return await library.files(usage: soundUsage(records).mapValues(\.count))
        }
        handlers.register(.uploadSound) { _, piece in
            try await library.receive(piece)
        }
        handlers.register(.deleteSound) { _, parameters in
            try await library.delete(parameters.name) {
                var users = soundUsage(await runtime.allRecords())[parameters.name] ?? []
                if settings.settings.defaultSoundName == parameters.name { users.insert("every alarm without its own (the household's default)", at: 0) }
                return users
            }
            return NullAnswer()
        }
        handlers.register(.trySound) { call, parameters in
            guard parameters.volumeDB.isFinite, AlarmWake.volumeRange.contains(parameters.volumeDB) else {
                throw ControlRequestError(id: call.request.id, .malformed, "volumeDB must be from -60 to 0")
            }
            var source = SoundSource.builtInTone
            var length = Duration.seconds(3)
            if let name = parameters.sound {
                guard await library.files(usage: [:]).contains(where: { $0.name == name }) else {
                    throw ControlError(.notFound, "no sound named \"\(name)\" (alarmctl sounds lists them)")
                }
                source = .file(await library.path(of: name))
                length = soundPreviewLength
            }
            do {
                guard try await appliance.playSample(volume: parameters.volumeDB, source: source, for: length) else {
                    throw ControlError(.busy, "an alarm is ringing")
                }
            } catch let error as HardwareError {
                throw ControlError(.serviceUnavailable, "no sound: \(error)")
            }
            return NullAnswer()
        }
    }

    /// The alarms that ring with each named sound, by the sound's name: their titles (or ids).
    static func soundUsage(_ records: [AlarmRecord]) -> [String: [String]] {
        var usage: [String: [String]] = [:]
        for record in records {
            guard case .named(let name) = record.definition.sound else { continue }
            let title = record.definition.presentation.alert.title
            usage[name, default: []].append(title.isEmpty ? record.id.uuidString : title)
        }
        return usage
    }
}
