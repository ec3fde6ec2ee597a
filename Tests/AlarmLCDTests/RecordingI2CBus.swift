import AlarmHardware
import AlarmLCD
import Synchronization

/// An I2C bus and a delay in one, which records every transfer and wait in one transcript and
/// never sleeps; chips answer only at ``answering`` addresses, and sends can be made to fail.
///
/// ```swift
/// let bus = RecordingI2CBus(answering: [0x3F])
/// let display = HD44780Display(size: .sixteenByTwo, bus: bus, delay: bus)
/// try await display.show(frame)
/// #expect(bus.take().sentBytes == [...])
/// ```
final class RecordingI2CBus: I2CBus, Delay {
    enum Event: Hashable, CustomStringConvertible {
        case sent(UInt8, to: UInt8)
        case received(from: UInt8)
        case delay(Duration)

        var description: String {
            switch self {
            case .sent(let byte, let address): "send \(hex(byte))@\(hex(address))"
            case .received(let address): "receive@\(hex(address))"
            case .delay(let duration): "delay \(duration)"
            }
        }
    }

    private struct State {
        var events: [Event] = []
        var answering: Set<UInt8>
        /// Sends still allowed before `failure` is thrown; nil: never fail.
        var sendsBeforeFailure: Int?
        var failure = HardwareError.Kind.noAcknowledge
    }

    let name = "/dev/i2c-test"
    private let state: Mutex<State>

    init(answering: Set<UInt8> = [0x27]) {
        state = Mutex(State(answering: answering))
    }

    /// The transcript so far, which is then emptied.
    func take() -> [Event] {
        state.withLock { state in
            defer { state.events = [] }
            return state.events
        }
    }

    func setAnswering(_ addresses: Set<UInt8>) {
        state.withLock { $0.answering = addresses }
    }

    /// After `count` more successful sends, every send fails with `kind` until ``heal()``.
    func failSends(after count: Int, with kind: HardwareError.Kind = .noAcknowledge) {
        state.withLock {
            $0.sendsBeforeFailure = count
            $0.failure = kind
        }
    }

    func heal() {
        state.withLock { $0.sendsBeforeFailure = nil }
    }

    func sendByte(_ byte: UInt8, to address: UInt8) throws(HardwareError) {
        try state.withLock { state throws(HardwareError) in
            if let remaining = state.sendsBeforeFailure {
                guard remaining > 0 else { throw HardwareError(state.failure, device: deviceName(address), errno: 121) }
                state.sendsBeforeFailure = remaining - 1
            }
            guard state.answering.contains(address) else {
                throw HardwareError(.noAcknowledge, device: deviceName(address), errno: 121)
            }
            state.events.append(.sent(byte, to: address))
        }
    }

    func receiveByte(from address: UInt8) throws(HardwareError) -> UInt8 {
        try state.withLock { state throws(HardwareError) in
            state.events.append(.received(from: address))
            guard state.answering.contains(address) else {
                throw HardwareError(.noAcknowledge, device: deviceName(address), errno: 121)
            }
            return 0xFF
        }
    }

    func delay(for duration: Duration) {
        state.withLock { $0.events.append(.delay(duration)) }
    }
}

extension [RecordingI2CBus.Event] {
    /// The bytes sent, in order, whatever their address.
    var sentBytes: [UInt8] {
        compactMap { if case .sent(let byte, _) = $0 { byte } else { nil } }
    }

    var delays: [Duration] {
        compactMap { if case .delay(let duration) = $0 { duration } else { nil } }
    }
}

func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
}
