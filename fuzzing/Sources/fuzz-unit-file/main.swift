import ChimeCore
import ChimePlatform
import Foundation
import FuzzSupport

/// One caching zone database for the whole run, as for one load of many files: reading the same TZif file from disk
/// for every input would be most of the work.
let zones = ZoneDatabase.system.cachingLookups()

let now = Date(epochMicroseconds: 1_796_029_913_241_911)
let path = "/etc/chime/fuzz.notification"

// A notification file and up to three drop-ins (the input's parts between 0x1E bytes), put together as
// NotificationSearch does (an empty main file masks, an empty drop-in is skipped), validated by NotificationLoader as
// chimed loads a file, and, when it loads, its next three occurrences.
Fuzzer.run { input in
    let files = Fuzzer.parts(input, limit: 4)
    guard !files[0].isEmpty else { return }
    var unit = UnitFile(parsing: files[0], path: path)
    for (index, dropIn) in files.dropFirst().enumerated() where !dropIn.isEmpty {
        unit.apply(dropIn: UnitFile(parsing: dropIn, path: "/etc/chime/fuzz.notification.d/\(index).conf"))
    }
    let loader = NotificationLoader(systemZone: Fuzzer.zones[1], zones: zones, calendarCache: CalendarCache())
    guard let notification = loader.load(unit, id: "fuzz", path: path).notification else { return }
    _ = notification.trigger.occurrences(
        after: now, history: DeliveryHistory(firstSeen: now), systemZone: loader.systemZone, limit: 3)
}
