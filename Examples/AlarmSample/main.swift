// alarm-sample: Apple's sample "Scheduling an alarm with AlarmKit" (AlarmKit-ScheduleAndAlert) on
// this device, an app that imports nothing but AlarmKit. How the port is organised:
//
// - CookingData.swift, AlarmForm.swift, AppIntents.swift and ViewModel.swift are Apple's files.
//   A line that differs from Apple's says why with `// Linux:`; the others are Apple's lines.
// - TerminalFrontEnd.swift and this file stand for the SwiftUI app (ContentView's list of alarms,
//   AlarmAddView's form) and the widget's pause, resume and stop buttons: commands read from
//   standard input, one per line, and the alarms printed as they change.
// - The widget extension has no counterpart here: the device's own display presents an alarm's
//   alert, countdown and paused states from the AlarmPresentation given when it was scheduled.
//
// `AlarmManager.shared` is this user's client of alarmd ($ALARMD_SOCKET, else
// /run/alarmd/control.sock). End of input ends the program, as `quit` does.

import AlarmKit

// Linux: the process names the intents it runs when the device delivers them: there is no App Intents metadata to find them in.
AlarmManager.shared.handleIntents(StopIntent.self, OpenAlarmAppIntent.self, PauseIntent.self, ResumeIntent.self, RepeatIntent.self)

let terminal = TerminalFrontEnd(viewModel: ViewModel())
await terminal.start()
// Lines are read here, on the main thread, which nothing else needs: the view model and the
// terminal are actors on the cooperative pool, so waiting for a line holds none of its threads.
while let line = readLine() {
    guard await terminal.run(line) else { break }
}
await terminal.finish()
