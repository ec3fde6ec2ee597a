import AlarmMQTT
import Foundation
import Testing

/// The device-discovery config Home Assistant reads: its documented keys, one unique id per
/// entity, and two clocks on one broker that never share an id or a topic.
@Suite struct HomeAssistantDiscoveryTests {
    static let wake = HomeAssistantDiscovery.Alarm(id: UUID(uuidString: "5E0C41D2-0000-4000-8000-000000000001")!, title: "Wake up")

    static func config(_ identity: ClockIdentity) throws -> [String: Any] {
        let bytes = HomeAssistantDiscovery.payload(identity: identity, alarms: [wake])
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    static func bedroom(machine: String = "0123456789abcdef0123456789abcdef") -> ClockIdentity {
        ClockIdentity(nodeID: "bed.room", machineID: machine, model: "Raspberry Pi 4 Model B", softwareVersion: "1.0")
    }

    @Test func theConfigHasTheKeysHomeAssistantDocumentsForDeviceDiscovery() throws {
        let identity = Self.bedroom()
        #expect(identity.nodeID == "bed_room")
        #expect(HomeAssistantDiscovery.topic(prefix: "homeassistant", nodeID: identity.nodeID) == "homeassistant/device/bed_room/config")
        let config = try Self.config(identity)
        #expect(Set(config.keys) == ["dev", "o", "avty", "qos", "cmps"])
        let device = try #require(config["dev"] as? [String: Any])
        #expect(device["ids"] as? [String] == [identity.uniquePrefix] && device["name"] as? String == "bed.room")
        #expect((config["o"] as? [String: Any])?["name"] as? String == "alarm-mqtt")
        #expect((config["avty"] as? [[String: Any]])?.first?["t"] as? String == "alarmd/bed_room/availability")
        let components = try #require(config["cmps"] as? [String: [String: Any]])
        let platforms: Set = ["sensor", "button", "event", "switch", "number"]
        var ids: Set<String> = []
        for (key, component) in components {
            let platform = try #require(component["p"] as? String, "\(key) has no platform")
            #expect(platforms.contains(platform), "\(key): \(platform)")
            let id = try #require(component["uniq_id"] as? String, "\(key) has no unique id")
            #expect(id.hasPrefix(identity.uniquePrefix + "_"))
            #expect(ids.insert(id).inserted, "\(id) twice")
            switch platform {
            case "sensor": #expect(component["stat_t"] != nil, "\(key)")
            case "button": #expect(component["cmd_t"] != nil && component["stat_t"] == nil, "\(key)")
            case "event": #expect(component["stat_t"] != nil && (component["evt_typ"] as? [String])?.isEmpty == false, "\(key)")
            case "switch", "number": #expect(component["stat_t"] != nil && component["cmd_t"] != nil, "\(key)")
            default: break
            }
            for topic in [component["stat_t"], component["cmd_t"]].compactMap({ $0 as? String }) {
                #expect(topic.hasPrefix("alarmd/bed_room/"), "\(key): \(topic)")
            }
        }
        #expect(components["next_alarm"]?["dev_cla"] as? String == "timestamp")
        #expect(components["time_source"]?["ent_cat"] as? String == "diagnostic")
        #expect(components["alarm_5e0c41d2_enabled"]?["name"] as? String == "Wake up enabled")
        #expect(components["alarm_5e0c41d2_skip"]?["cmd_t"] as? String == "alarmd/bed_room/cmd/alarm/5e0c41d2-0000-4000-8000-000000000001/skip/set")
    }

    @Test func twoClocksOnOneBrokerShareNoIdAndNoTopic() throws {
        let bedroom = Self.bedroom()
        let kitchen = ClockIdentity(nodeID: "kitchen", machineID: "fedcba9876543210fedcba9876543210", model: "Pi", softwareVersion: "1.0")
        #expect(bedroom.uniquePrefix != kitchen.uniquePrefix)
        func strings(_ config: [String: Any]) -> Set<String> {
            let components = (config["cmps"] as? [String: [String: Any]]) ?? [:]
            return Set(components.values.flatMap { [$0["uniq_id"], $0["stat_t"], $0["cmd_t"]].compactMap { $0 as? String } })
        }
        #expect(strings(try Self.config(bedroom)).isDisjoint(with: strings(try Self.config(kitchen))))
        #expect(HomeAssistantDiscovery.topic(prefix: "homeassistant", nodeID: bedroom.nodeID)
            != HomeAssistantDiscovery.topic(prefix: "homeassistant", nodeID: kitchen.nodeID))
    }

    @Test func theAlarmsAnEarlierConfigAnnouncedAreReadBackOnlyFromThisClocksOwn() throws {
        let identity = Self.bedroom()
        let once = HomeAssistantDiscovery.Alarm(id: UUID(uuidString: "6E0C41D2-0000-4000-8000-000000000002")!, title: "Once", repeats: false)
        let gone = HomeAssistantDiscovery.Alarm(id: UUID(uuidString: "7E0C41D2-0000-4000-8000-000000000003")!, title: "Gone")
        let payload = HomeAssistantDiscovery.payload(identity: identity, alarms: [Self.wake, once], removed: [gone])
        let topics = BridgeTopics(nodeID: identity.nodeID)
        let read = try #require(HomeAssistantDiscovery.announcedAlarms(in: payload, uniquePrefix: identity.uniquePrefix, topics: topics))
        // Titles are not read back; a removed alarm (its platform alone) is not announced.
        #expect(read.map(\.id) == [Self.wake.id, once.id])
        #expect(read.map(\.repeats) == [true, false] && read.allSatisfy(\.enabled))
        let kitchen = ClockIdentity(nodeID: "bed.room", machineID: "fedcba9876543210fedcba9876543210", model: "Pi", softwareVersion: "1.0")
        #expect(HomeAssistantDiscovery.announcedAlarms(in: payload, uniquePrefix: kitchen.uniquePrefix, topics: topics) == nil)
        #expect(HomeAssistantDiscovery.announcedAlarms(in: Array("not json".utf8), uniquePrefix: identity.uniquePrefix, topics: topics) == nil)
        #expect(HomeAssistantDiscovery.announcedAlarms(in: [], uniquePrefix: identity.uniquePrefix, topics: topics) == nil)
    }

    @Test func theSameClockGivesTheSameBytesAndItsMachineIdIsNotShown() throws {
        let identity = Self.bedroom()
        let first = HomeAssistantDiscovery.payload(identity: identity, alarms: [Self.wake])
        #expect(first == HomeAssistantDiscovery.payload(identity: identity, alarms: [Self.wake]))
        #expect(!String(decoding: first, as: UTF8.self).contains("0123456789abcdef0123456789abcdef"))
        #expect(identity.uniquePrefix.count == "alarmd_".count + 16)
    }
}
