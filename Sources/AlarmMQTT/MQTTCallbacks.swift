import CMosquitto
import Synchronization

/// Why the MQTT client could not do something, in a sentence.
public struct MQTTError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// `mosquitto_lib_init`, once for the process (it is the one libmosquitto call that is not
/// thread safe).
enum MQTTLibrary {
    private static let initialized: Bool = {
        mosquitto_lib_init()
        return true
    }()

    static func initialize() {
        _ = initialized
    }
}

/// libmosquitto's callbacks: static C entry points (not closure literals; see PLATFORM-FACTS on
/// C callbacks), run on the loop thread with libmosquitto's callback lock held, so they only
/// copy and hand on.
enum MQTTCallbacks {
    static let connected: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = { _, context, code in
        guard let context else { return }
        let box = Unmanaged<MQTTClient.Context>.fromOpaque(context).takeUnretainedValue()
        guard code == 0 else {
            box.continuation.yield(.disconnected("the broker refused the connection: \(String(cString: mosquitto_connack_string(code)))"))
            return
        }
        box.connected.withLock { $0 = true }
        box.client.withLock { $0.client }?.didConnect()
        box.continuation.yield(.connected)
    }

    static let disconnected: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = { _, context, _ in
        guard let context else { return }
        Unmanaged<MQTTClient.Context>.fromOpaque(context).takeUnretainedValue().connected.withLock { $0 = false }
    }

    static let published: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = { _, context, id in
        guard let context else { return }
        let box = Unmanaged<MQTTClient.Context>.fromOpaque(context).takeUnretainedValue()
        box.farewell.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.collecting else { return nil }
            state.acknowledged.insert(id)
            guard state.id == id else { return nil }
            defer { state.waiting = nil }
            return state.waiting
        }?.resume()
    }

    static let message: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafePointer<mosquitto_message>?) -> Void = {
        _, context, message in
        guard let context, let message, let topic = message.pointee.topic else { return }
        let box = Unmanaged<MQTTClient.Context>.fromOpaque(context).takeUnretainedValue()
        let count = Int(message.pointee.payloadlen)
        let payload = count > 0 && message.pointee.payload != nil
            ? Array(UnsafeRawBufferPointer(start: message.pointee.payload, count: count)) : []
        box.continuation.yield(.message(.init(topic: String(cString: topic), payload: payload, retained: message.pointee.retain)))
    }
}
