import AlarmAppliance
import AlarmControl
import AlarmHardware
import AlarmProtocol

extension DaemonOperations {
    /// What the daemon knows of the parts the appliance does not check by driving them: the
    /// buttons' lines and the sound card's volume control.
    public struct SelfTestBoard: Sendable {
        /// A part's state as its backend reports it.
        public struct PartState: Sendable {
            public var working: Bool
            public var detail: String
            public var fault: HardwareError?

            public init(working: Bool, detail: String, fault: HardwareError? = nil) {
                self.working = working
                self.detail = detail
                self.fault = fault
            }
        }

        /// The buttons, now.
        public var buttons: @Sendable () -> PartState
        /// The volume control the profile names, now: its range, or why not; `nil` if it names none.
        public var mixer: @Sendable () -> Result<ClosedRange<Double>, HardwareError>?

        public init(
            buttons: @escaping @Sendable () -> PartState,
            mixer: @escaping @Sendable () -> Result<ClosedRange<Double>, HardwareError>?
        ) {
            self.buttons = buttons
            self.mixer = mixer
        }
    }

    /// `selfTest` (administrators): the appliance checks the LED, the display and the sound on
    /// its own parts (``Appliance/selfTest(_:showFor:)``); the buttons, which the appliance holds
    /// and listens to all the time, are reported from their lines' state. Refused with `busy`
    /// while an alarm rings or a question is on the display.
    public static func selfTestHandler(
        appliance: Appliance, board: SelfTestBoard
    ) -> @Sendable (ControlCall, SelfTestParameters) async throws -> SelfTestReport {
        { call, parameters in
            let parts = try parts(parameters, request: call.request)
            let checks = parts.compactMap(ApplianceCheck.init(rawValue:))
            var results: [ApplianceCheckResult] = []
            if !checks.isEmpty {
                do {
                    results = try await appliance.selfTest(checks, showFor: .milliseconds(Int((parameters.showSeconds * 1000).rounded())))
                } catch {
                    throw ControlError(.busy, "self-test not started: \(error)")
                }
            }
            let report = parts.map { part -> SelfTestReport.Part in
                guard let check = ApplianceCheck(rawValue: part) else {
                    let buttons = board.buttons()
                    return .init(part: part, passed: buttons.working, detail: buttons.detail, fault: buttons.fault.map(Self.fault))
                }
                let result = results.first { $0.check == check }
                return Self.report(result?.outcome ?? .interrupted, part: part, mixer: check == .sound ? board.mixer() : nil)
            }
            return SelfTestReport(parts: report)
        }
    }

    /// The parts asked for, each known and asked once; the show time in range.
    private static func parts(_ parameters: SelfTestParameters, request: ControlRequest) throws -> [String] {
        let known = ApplianceCheck.allCases.map(\.rawValue) + ["buttons"]
        guard !parameters.parts.isEmpty else {
            throw ControlRequestError(id: request.id, .malformed, "\"parts\" must name at least one of \(known.joined(separator: ", "))")
        }
        for part in parameters.parts where !known.contains(part) {
            throw ControlRequestError(
                id: request.id, .malformed, "\"parts\" has \"\(ControlRequest.clipped(part))\": expected \(known.joined(separator: ", "))")
        }
        guard Set(parameters.parts).count == parameters.parts.count else {
            throw ControlRequestError(id: request.id, .malformed, "\"parts\" names a part twice")
        }
        let seconds = parameters.showSeconds
        guard seconds.isFinite, (0...SelfTestOperation.maximumShowSeconds).contains(seconds) else {
            throw ControlRequestError(
                id: request.id, .malformed, "\"showSeconds\" must be from 0 to \(Int(SelfTestOperation.maximumShowSeconds))")
        }
        return parameters.parts
    }

    private static func report(
        _ outcome: ApplianceCheckResult.Outcome, part: String, mixer: Result<ClosedRange<Double>, HardwareError>?
    ) -> SelfTestReport.Part {
        switch outcome {
        case .interrupted:
            return .init(part: part, passed: false, detail: "interrupted: an alarm began ringing, and it comes first", interrupted: true)
        case .failed(let error):
            return .init(part: part, passed: false, detail: "\(error)", fault: fault(error))
        case .shown(let detail):
            switch mixer {
            case nil:
                return .init(part: part, passed: true, detail: detail)
            case .success(let range)?:
                return .init(part: part, passed: true, detail: detail + "; " + SelfTestAdvice.volumeControlNote(range))
            case .failure(let error)?:
                return .init(
                    part: part, passed: false, detail: detail + "; volume control: \(error)", fault: fault(error),
                    hint: SelfTestAdvice.volumeControlHint)
            }
        }
    }

    private static func fault(_ error: HardwareError) -> SelfTestReport.Fault {
        .init(kind: error.kind.rawValue, device: error.device, errno: error.errno)
    }
}
