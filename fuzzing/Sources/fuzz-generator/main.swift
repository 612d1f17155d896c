import ChimeCore
import ChimePlatform
import FuzzSupport

/// One caching zone database for the whole run, as for one load of many files: reading the same TZif file from disk
/// for every input would be most of the work.
let zones = ZoneDatabase.system.cachingLookups()

// What a generator prints: read and validated line by line as chimed's GeneratorSource does it, each line a JSON
// object with the keys of a notification file. Most lines are read straight from their bytes there; each line must
// come out as the full reading of every line gives it.
Fuzzer.run { input in
    let loader = NotificationLoader(systemZone: Fuzzer.zones[1], zones: zones, calendarCache: CalendarCache())
    let path = "/etc/chime/generators.d/fuzz"
    let loaded = GeneratorOutput.validated(parsing: Array(input), path: path, by: loader)
    let full = GeneratorOutput(parsing: Array(input), path: path).validated(by: loader)
    precondition(loaded.map(\.line) == full.map(\.line), "the two readings found different lines")
    precondition(
        loaded.map(\.result.notification) == full.map(\.result.notification),
        "the two readings made different notifications")
    precondition(
        loaded.map(\.result.diagnostics) == full.map(\.result.diagnostics), "the two readings said different things")
}
