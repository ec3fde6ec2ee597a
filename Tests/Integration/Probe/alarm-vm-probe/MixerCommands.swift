import ArgumentParser
import VMProbeKit

struct AddVolume: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-volume",
        abstract: "Add a playback volume control to a card that has none (snd-aloop).",
        discussion: """
            Adds a user-defined integer control (0-256, a dB scale of 0.4 dB steps from -102.4 dB \
            to 0 dB) set to 0 dB: alsa-lib's simple mixer shows `PCM Playback Volume` as the \
            control `PCM`, like a Raspberry Pi's jack. It scales nothing; it records what a \
            program sets. Prints {"card":...,"control":...}.
            """)

    @Option(help: "The control device.")
    var card = "hw:CARD=Headphones"

    @Option(help: "The control's full name.")
    var name = "PCM Playback Volume"

    func run() throws {
        try ALSAVolumeControl.add(card: card, name: name)
        var object = JSONObject()
        object.set("card", .string(card))
        object.set("control", .string(name))
        output(object)
    }
}

struct Mixer: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A simple mixer control's playback volume.",
        discussion: "Prints {\"card\":...,\"control\":...,\"raw\":N,\"db\":D} (the first channel).")

    @Option(help: "The control device.")
    var card = "hw:CARD=Headphones"

    @Option(help: "The simple control's name.")
    var control = "PCM"

    func run() throws {
        let volume = try ALSAVolumeControl.read(card: card, name: control)
        var object = JSONObject()
        object.set("card", .string(card))
        object.set("control", .string(control))
        object.set("raw", .integer(volume.raw))
        object.set("db", .number(volume.decibels, decimals: 2))
        output(object)
    }
}
