// Apple's CookingData.swift (AlarmKit-ScheduleAndAlert): the metadata the app attaches to its
// alarms, shared with the widget there. Lines that differ from Apple's say why with `// Linux:`.

import AlarmKit

struct CookingData: AlarmMetadata {
    let createdAt: Date
    let method: Method?

    init(method: Method? = nil) {
        self.createdAt = Date.now
        self.method = method
    }

    enum Method: String, Codable {
        case frying
        case grilling

        var systemImageName: String {
            switch self {
            case .frying: "frying.pan"
            case .grilling: "flame"
            }
        }
    }
}
