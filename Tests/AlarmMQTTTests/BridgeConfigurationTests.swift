import AlarmMQTT
import AlarmTestKit
import FoundationEssentials
import Glibc
import TOMLConfig
import Testing

/// The bridge's configuration: off until a broker is given, URLs people write, the command line
/// over the file, and a password file nobody else may read.
@Suite struct BridgeConfigurationTests {
    @Test(arguments: [
        ("mqtt://homeassistant.local", "homeassistant.local", 1883, false),
        ("mqtts://homeassistant.local", "homeassistant.local", 8883, true),
        ("mqtt://192.168.1.5:1884/", "192.168.1.5", 1884, false),
        ("MQTTS://[fd00::5]:8884", "fd00::5", 8884, true),
        ("mqtt://[fd00::5]", "fd00::5", 1883, false),
    ])
    func aBrokersURLIsReadAsPeopleWriteIt(url: String, host: String, port: Int, tls: Bool) throws {
        let address = try BrokerAddress(url)
        #expect(address.host == host && address.port == port && address.tls == tls)
    }

    @Test(arguments: ["http://broker", "mqtt://", "mqtt://broker:0", "mqtt://broker:70000", "mqtt://user:pw@broker", "mqtt://[fd00::5", "broker"])
    func aURLThatIsNoBrokersIsRefusedSayingWhy(url: String) {
        #expect(throws: BrokerAddress.Refusal.self) { try BrokerAddress(url) }
    }

    @Test func withNoBrokerTheBridgeIsOffAndTheCommandLineWinsOverTheFile() throws {
        let directory = try TemporaryDirectory()
        #expect(try BridgeConfiguration.read(file: nil, broker: nil, socket: nil, hostName: "bedroom") == nil)
        let file = directory.path + "/alarm-mqtt.toml"
        try TestFiles.write(Array("[mqtt]\nbroker = \"mqtt://hub\"\ndiscovery_prefix = \"ha\"\n".utf8), to: file)
        let fromFile = try #require(try BridgeConfiguration.read(file: file, broker: nil, socket: nil, hostName: "bed.room"))
        #expect(fromFile.broker.description == "mqtt://hub:1883" && fromFile.discoveryPrefix == "ha")
        #expect(fromFile.nodeID == "bed_room" && fromFile.clientID == "alarm-mqtt-bed_room")
        #expect(fromFile.socketPath == "/run/alarmd/control.sock" && fromFile.caFile == nil)
        let overridden = try #require(try BridgeConfiguration.read(file: file, broker: "mqtts://other", socket: "/tmp/a.sock", hostName: "x"))
        #expect(overridden.broker.description == "mqtts://other:8883" && overridden.socketPath == "/tmp/a.sock")
        #expect(overridden.caFile == "/etc/ssl/certs/ca-certificates.crt", "TLS verifies with the system's authorities by default")
        do {
            _ = try BridgeConfiguration.read(file: file, broker: "https://hub", socket: nil, hostName: "x")
            Issue.record("an https URL was taken")
        } catch {
            #expect(error.description.contains("mqtt://HOST[:PORT]"))
        }
    }

    @Test func aPasswordFileOthersMayReadIsRefusedAndItsContentsNeverShown() throws {
        let directory = try TemporaryDirectory()
        let password = directory.path + "/mqtt-password"
        try TestFiles.write(Array("s3cret\n".utf8), to: password)
        let file = directory.path + "/alarm-mqtt.toml"
        try TestFiles.write(Array("[mqtt]\nbroker = \"mqtt://hub\"\nusername = \"clock\"\npassword_file = \"\(password)\"\n".utf8), to: file)
        chmod(password, 0o640)
        let configuration = try #require(try BridgeConfiguration.read(file: file, broker: nil, socket: nil, hostName: "x"))
        #expect(configuration.username == "clock" && configuration.password == "s3cret")
        chmod(password, 0o644)
        do {
            _ = try BridgeConfiguration.read(file: file, broker: nil, socket: nil, hostName: "x")
            Issue.record("a world-readable password file was taken")
        } catch {
            #expect(error.description.contains("may be read by anyone") && error.line == 4)
            #expect(!error.description.contains("s3cret"))
        }
    }

    @Test func preAlarmOffsetsAreDurationsAndAMisspelledKeyIsAWarning() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/alarm-mqtt.toml"
        try TestFiles.write(Array("[mqtt]\nbroker = \"mqtt://hub\"\npre_alarm = [\"20m\", \"5m\"]\nnode_idd = \"x\"\n".utf8), to: file)
        let read = try #require(try BridgeConfiguration.read(file: file, broker: nil, socket: nil, hostName: "bedroom"))
        #expect(read.preAlarmOffsets == [.seconds(1200), .seconds(300)])
        #expect(read.warnings.map(\.key) == ["mqtt.node_idd"])
        #expect(read.warnings.first?.message.contains("did you mean mqtt.node_id?") == true)
        for bad in [#"["20"]"#, #"["30s"]"#, #"["13h"]"#, #"["5m", "5m"]"#, #""20m""#] {
            try TestFiles.write(Array("[mqtt]\nbroker = \"mqtt://hub\"\npre_alarm = \(bad)\n".utf8), to: file)
            #expect(throws: ConfigError.self, "\(bad)") { try BridgeConfiguration.read(file: file, broker: nil, socket: nil, hostName: "b") }
        }
    }
}
