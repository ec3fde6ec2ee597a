import AlarmALSA
import AlarmBoard
import Testing

/// Device names through alsa-lib's own configuration lookup, the step `snd_ctl_open` and
/// `snd_pcm_open` take before looking for a card; no card is needed, so these run anywhere.
@Suite struct ALSADeviceNameTests {
    /// The repository's `board/` directory, from this file's path.
    static let boards: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // Tests/AlarmALSATests/ALSADeviceNameTests.swift
        return parts.joined(separator: "/") + "/board"
    }()

    /// Every profile in `board/`, including ones added later: a mixer card alsa-lib would refuse
    /// ("Invalid CTL Headphones") or a PCM it cannot resolve fails here, not on a Pi.
    @Test(arguments: BoardProfile.available(in: boards))
    func everyShippedProfileNamesItsCardAndDeviceAsALSAResolvesThem(_ name: String) throws {
        let sound = try BoardProfile.load(nameOrPath: name, directory: Self.boards).profile.sound
        #expect(ALSADeviceName.problem(with: sound.device, as: .pcm) == nil, "\(name): sound.device")
        if sound.mixer != nil {
            #expect(ALSADeviceName.problem(with: sound.card, as: .control) == nil, "\(name): sound.card")
        }
    }

    @Test func aBareCardIDHasNoControlDefinitionAndTheMessageSaysHowToWriteIt() {
        let problem = ALSADeviceName.problem(with: "Headphones", as: .control)
        #expect(problem == .noDefinition(name: "Headphones", kind: .control))
        #expect(problem?.description == "alsa-lib has no control device named \"Headphones\"; a card from `aplay -l` is written \"hw:CARD=Headphones\"")
        #expect(ALSADeviceName.problem(with: "Headphones", as: .pcm)?.description
            == "alsa-lib has no PCM named \"Headphones\"; a card from `aplay -l` is written \"hw:CARD=Headphones,DEV=0\"")
    }

    @Test(arguments: ["hw:CARD=Headphones", "hw:1", "hw:Headphones", "default", "sysdefault:CARD=alarmdNoSuchCard"])
    func controlDeviceNamesResolveWithOrWithoutTheCard(_ name: String) {
        #expect(ALSADeviceName.problem(with: name, as: .control) == nil)
    }

    @Test(arguments: ["plughw:CARD=Headphones,DEV=0", "hw:Loopback,0,0", "default", "hw:CARD=Loopback,DEV=1"])
    func pcmNamesResolveWithOrWithoutTheCard(_ name: String) {
        #expect(ALSADeviceName.problem(with: name, as: .pcm) == nil)
    }

    /// A PCM's arguments are not a control's: `hw` as a control takes only `CARD`.
    @Test func aControlGivenAPCMsArgumentsIsRefused() throws {
        let problem = try #require(ALSADeviceName.problem(with: "hw:CARD=Headphones,DEV=0", as: .control))
        guard case .argumentsRefused(let name, .control, _) = problem else {
            Issue.record("\(problem)")
            return
        }
        #expect(name == "hw:CARD=Headphones,DEV=0")
        #expect(problem.description.hasPrefix("alsa-lib's control device \"hw\" does not take the arguments of \"hw:CARD=Headphones,DEV=0\""))
    }

    @Test func theMixerOpensABareCardIDAsThatCardsControlDevice() {
        #expect(ALSADeviceName.controlDevice(forCard: "Headphones") == "hw:CARD=Headphones")
        #expect(ALSAMixerVolume(card: "Headphones", control: "PCM").controlDevice == "hw:CARD=Headphones")
        for written in ["hw:CARD=Headphones", "default", "hw:1"] {
            #expect(ALSADeviceName.controlDevice(forCard: written) == written)
        }
    }
}
