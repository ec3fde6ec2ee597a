import AlarmBoard
import AlarmGPIO
import AlarmHardware
import Glibc

extension DaemonBoard {
    /// How long to wait for the GPIO threads to say whether their chip and lines opened (they
    /// answer in milliseconds; a loaded machine may take seconds to schedule them).
    static let gpioStartTimeout: Duration = .seconds(15)

    /// The parts as `alarmd selftest` checks them with no service running: the board opened as
    /// the service opens it (with `volume: nil`, the card's control left as it is), each GPIO part
    /// once its lines opened or failed, the sound as it answered at start.
    func selfTestParts(_ profile: BoardProfile) async -> SelfTestParts {
        guard !profile.simulated, profile.gpio != nil, profile.display != nil else {
            return SelfTestParts(
                indicator: .success(hardware.indicator), display: .success(hardware.display),
                audio: .success(hardware.audio), buttons: .success(hardware.buttons),
                light: hardware.light.map { .success($0) }, simulated: true)
        }
        var parts = SelfTestParts(
            indicator: .failure(HardwareError(.io, device: "gpio")), display: .success(hardware.display),
            audio: soundProblemAtStart.map { .failure($0) } ?? .success(hardware.audio),
            buttons: .failure(HardwareError(.io, device: "gpio")))
        if let light {
            do throws(HardwareError) {
                try await light.open()
                parts.light = .success(light)
            } catch {
                parts.light = .failure(error)
            }
        }
        if let indicator {
            let problem = await Self.firstProblem(indicator.statusUpdates(), current: { indicator.status })
            parts.indicator = problem.map { .failure($0) } ?? .success(indicator)
        }
        if let buttons {
            let problem = await Self.firstProblem(buttons.statusUpdates(), current: { buttons.status })
            parts.buttons = problem.map { .failure($0) } ?? .success(buttons)
        }
        if profile.sound.mixer != nil {
            if let mixer {
                do throws(HardwareError) {
                    parts.mixer = .success(try mixer.range())
                } catch {
                    parts.mixer = .failure(error)
                }
            } else {
                parts.mixer = .failure(mixerProblem ?? HardwareError(.deviceUnavailable, device: "mixer"))
            }
        }
        return parts
    }

    /// Waits for the first status that is not `.starting`: `nil` for ready, else the failure.
    /// `updates` only carries changes from its subscription on, so the status at that moment
    /// (`current`, read after subscribing) may already be the answer.
    private static func firstProblem(
        _ updates: AsyncStream<GPIOStatus>, current: () -> GPIOStatus
    ) async -> HardwareError? {
        switch current() {
        case .ready: return nil
        case .failed(let error): return error
        case .starting, .closed: break
        }
        let settled = await firstResult(within: gpioStartTimeout) { () -> HardwareError? in
            for await status in updates {
                switch status {
                case .ready: return nil
                case .failed(let error): return error
                case .starting, .closed: continue
                }
            }
            return nil
        }
        return settled ?? HardwareError(.io, device: "gpio", errno: ETIMEDOUT)
    }
}
