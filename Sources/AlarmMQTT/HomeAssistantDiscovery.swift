import FoundationEssentials

/// Who this clock is on the broker: its node id (in every topic, so several clocks never
/// collide), the prefix of its entities' unique ids, and what Home Assistant shows of the device.
public struct ClockIdentity: Hashable, Sendable {
    /// `[A-Za-z0-9_-]` only, as Home Assistant's discovery topics require.
    public var nodeID: String
    /// `alarmd_` and a hash of the machine id: stable across renames, and not the machine id
    /// itself (systemd asks that it not be shown).
    public var uniquePrefix: String
    public var name: String
    public var model: String
    /// alarmd's version (the device's software).
    public var softwareVersion: String
    /// The bridge's own (the discovery's origin).
    public var bridgeVersion: String

    public init(nodeID: String, machineID: String, name: String? = nil, model: String, softwareVersion: String, bridgeVersion: String? = nil) {
        self.nodeID = Self.sanitized(nodeID)
        uniquePrefix = Self.uniquePrefix(machineID: machineID)
        self.name = name ?? nodeID
        self.model = model
        self.softwareVersion = softwareVersion
        self.bridgeVersion = bridgeVersion ?? softwareVersion
    }

    /// `node` with every character outside `[A-Za-z0-9_-]` made `_` (a host name's dots).
    public static func sanitized(_ node: String) -> String {
        let kept = node.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-")
                ? Character(scalar) : "_"
        }
        return kept.isEmpty ? "alarmd" : String(kept)
    }

    /// The prefix of the unique ids of the clock on the machine `machineID`.
    public static func uniquePrefix(machineID: String) -> String {
        "alarmd_" + hash(machineID)
    }

    /// 64-bit FNV-1a of the machine id salted with this program's name, as 16 hex digits.
    static func hash(_ machineID: String) -> String {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in ("alarm-mqtt:" + machineID).utf8 {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01b3
        }
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// The clock's topics under `alarmd/NODE/`: states (retained), events (not retained) and the
/// commands it listens to.
public struct BridgeTopics: Hashable, Sendable {
    public var base: String

    public init(nodeID: String) {
        base = "alarmd/" + nodeID
    }

    public var availability: String { base + "/availability" }
    public var state: String { base + "/state" }
    public var nextAlarm: String { base + "/next_alarm" }
    public var timeSource: String { base + "/time_source" }
    public var buttonEvent: String { base + "/event/button" }
    public var preAlarmEvent: String { base + "/event/pre_alarm" }
    public var volume: String { base + "/volume" }
    public var snooze: String { base + "/snooze" }
    public var light: String { base + "/light" }
    /// `stop`, `snooze`, `volume/set`, `snooze/set`, `light/set`, `alarm/ID/enabled/set`, `alarm/ID/skip/set`.
    public var commands: String { base + "/cmd/#" }
    public func command(_ name: String) -> String { base + "/cmd/" + name }
    public func alarm(_ id: UUID) -> String { base + "/alarm/" + id.uuidString.lowercased() }
}

/// Home Assistant's MQTT device discovery for one clock: one retained config on
/// `PREFIX/device/NODE/config` whose components (`cmps`) are the clock's entities, with the
/// device (`dev`), the origin (`o`) and the availability (`avty`, the bridge's last will) shared.
/// Keys are Home Assistant's documented abbreviations.
public enum HomeAssistantDiscovery {
    /// An alarm as entities: a switch for enabled and, for a weekly one, a switch that skips
    /// its next occurrence.
    public struct Alarm: Hashable, Sendable {
        public var id: UUID
        public var title: String
        public var repeats: Bool
        /// Whether it has the enabled switch (every alarm does; a removal may name the skip alone).
        public var enabled: Bool

        public init(id: UUID, title: String, repeats: Bool = true, enabled: Bool = true) {
            self.id = id
            self.title = title
            self.repeats = repeats
            self.enabled = enabled
        }

        var key: String { "alarm_" + id.uuidString.lowercased().prefix(8) }
    }

    public static func topic(prefix: String, nodeID: String) -> String {
        "\(prefix)/device/\(nodeID)/config"
    }

    /// The config's JSON, keys sorted (the same bytes for the same clock). The components of
    /// `removed` alarms are there with their platform alone, which is how Home Assistant is told
    /// to remove them (the next config leaves them out).
    public static func payload(identity: ClockIdentity, alarms: [Alarm], removed: [Alarm] = [], hasLight: Bool = false) -> [UInt8] {
        let topics = BridgeTopics(nodeID: identity.nodeID)
        let id = identity.uniquePrefix
        var components: [String: Component] = [
            "next_alarm": .init(p: "sensor", name: "Next alarm", uniq_id: id + "_next_alarm", stat_t: topics.nextAlarm, dev_cla: "timestamp"),
            "state": .init(
                p: "sensor", name: "State", uniq_id: id + "_state", stat_t: topics.state, dev_cla: "enum",
                ops: ["idle", "countdown", "alerting", "snoozed", "paused"]),
            "time_source": .init(
                p: "sensor", name: "Time source", uniq_id: id + "_time_source", stat_t: topics.timeSource, ent_cat: "diagnostic"),
            "stop": .init(p: "button", name: "Stop", uniq_id: id + "_stop", cmd_t: topics.command("stop")),
            "snooze": .init(p: "button", name: "Snooze", uniq_id: id + "_snooze", cmd_t: topics.command("snooze")),
            "button_press": .init(
                p: "event", name: "Button press", uniq_id: id + "_button_press", stat_t: topics.buttonEvent, dev_cla: "button",
                evt_typ: ["stop", "snooze"]),
            "pre_alarm": .init(
                p: "event", name: "Before the alarm", uniq_id: id + "_pre_alarm", stat_t: topics.preAlarmEvent, evt_typ: ["pre_alarm"]),
            "volume": .init(
                p: "number", name: "Volume", uniq_id: id + "_volume", stat_t: topics.volume, cmd_t: topics.command("volume/set"),
                min: 0, max: 100, unit_of_meas: "%", ent_cat: "config"),
            "snooze_length": .init(
                p: "number", name: "Snooze length", uniq_id: id + "_snooze_length", stat_t: topics.snooze,
                cmd_t: topics.command("snooze/set"), min: 1, max: 1440, unit_of_meas: "min", ent_cat: "config"),
        ]
        if hasLight {
            components["light"] = .init(
                p: "light", name: "Sunrise light", uniq_id: id + "_light", stat_t: topics.light, cmd_t: topics.command("light/set"),
                schema: "json", sup_clrm: ["brightness"])
        }
        for alarm in alarms {
            let (uuid, base) = (alarm.id.uuidString.lowercased(), topics.alarm(alarm.id))
            components[alarm.key + "_enabled"] = .init(
                p: "switch", name: alarm.title + " enabled", uniq_id: id + "_" + uuid + "_enabled",
                stat_t: base + "/enabled", cmd_t: topics.command("alarm/\(uuid)/enabled/set"))
            if alarm.repeats {
                components[alarm.key + "_skip"] = .init(
                    p: "switch", name: alarm.title + " skips its next day", uniq_id: id + "_" + uuid + "_skip",
                    stat_t: base + "/skip", cmd_t: topics.command("alarm/\(uuid)/skip/set"))
            }
        }
        for alarm in removed {
            if alarm.enabled { components[alarm.key + "_enabled"] = .removed("switch") }
            if alarm.repeats { components[alarm.key + "_skip"] = .removed("switch") }
        }
        let config = Config(
            dev: .init(ids: [id], name: identity.name, mf: "alarmd", mdl: identity.model, sw: identity.softwareVersion),
            o: .init(name: "alarm-mqtt", sw: identity.bridgeVersion),
            avty: [.init(t: topics.availability)], qos: 1, cmps: components)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(config)) ?? Data("{}".utf8))
    }

    /// The alarms a config on the broker announces as switches, when it is this clock's (its
    /// device identifier is `uniquePrefix`); `nil` for another device's config or a payload that
    /// is not one. The titles are not read: what is known is enough to remove them.
    public static func announcedAlarms(in payload: [UInt8], uniquePrefix: String, topics: BridgeTopics) -> [Alarm]? {
        struct Announced: Decodable {
            struct Device: Decodable { var ids: [String]? }
            struct Component: Decodable { var stat_t: String? }
            var dev: Device?
            var cmps: [String: Component]?
        }
        guard let config = try? JSONDecoder().decode(Announced.self, from: Data(payload)),
            config.dev?.ids?.contains(uniquePrefix) == true
        else { return nil }
        var alarms: [UUID: Alarm] = [:]
        let prefix = topics.base + "/alarm/"
        for state in (config.cmps ?? [:]).values.compactMap(\.stat_t) where state.hasPrefix(prefix) {
            let parts = state.dropFirst(prefix.count).split(separator: "/")
            guard parts.count == 2, let id = UUID(uuidString: String(parts[0])), ["enabled", "skip"].contains(parts[1]) else { continue }
            var alarm = alarms[id] ?? Alarm(id: id, title: "", repeats: false, enabled: false)
            if parts[1] == "enabled" { alarm.enabled = true } else { alarm.repeats = true }
            alarms[id] = alarm
        }
        return alarms.values.sorted { $0.id.uuidString < $1.id.uuidString }
    }

    // Home Assistant's abbreviations (mqtt.markdown, "Supported abbreviations"), as the keys.
    struct Config: Encodable {
        var dev: Device
        var o: Origin
        var avty: [Availability]
        var qos: Int
        var cmps: [String: Component]
    }

    struct Device: Encodable {
        var ids: [String]
        var name: String
        var mf: String
        var mdl: String
        var sw: String
    }

    struct Origin: Encodable {
        var name: String
        var sw: String
    }

    struct Availability: Encodable {
        var t: String
    }

    struct Component: Encodable {
        var p: String
        var name: String?
        var uniq_id: String?
        var stat_t: String?
        var cmd_t: String?
        var dev_cla: String?
        var ops: [String]?
        var evt_typ: [String]?
        var min: Int?
        var max: Int?
        var unit_of_meas: String?
        var ent_cat: String?
        var schema: String?
        var sup_clrm: [String]?

        init(
            p: String, name: String, uniq_id: String, stat_t: String? = nil, cmd_t: String? = nil, dev_cla: String? = nil,
            ops: [String]? = nil, evt_typ: [String]? = nil, min: Int? = nil, max: Int? = nil, unit_of_meas: String? = nil,
            ent_cat: String? = nil, schema: String? = nil, sup_clrm: [String]? = nil
        ) {
            (self.p, self.name, self.uniq_id, self.stat_t, self.cmd_t, self.dev_cla) = (p, name, uniq_id, stat_t, cmd_t, dev_cla)
            (self.ops, self.evt_typ, self.min, self.max, self.unit_of_meas) = (ops, evt_typ, min, max, unit_of_meas)
            (self.ent_cat, self.schema, self.sup_clrm) = (ent_cat, schema, sup_clrm)
        }

        /// A component with its platform alone: Home Assistant removes its entity.
        static func removed(_ platform: String) -> Component {
            var component = Component(p: platform, name: "", uniq_id: "")
            (component.name, component.uniq_id) = (nil, nil)
            return component
        }
    }
}
