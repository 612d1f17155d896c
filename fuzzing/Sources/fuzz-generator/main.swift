import ChimeCore
import ChimeDaemon
import FuzzSupport

/// One caching zone database for the whole run, as for one load of many files: reading the same TZif file from disk
/// for every input would be most of the work.
let zones = ZoneDatabase.system.cachingLookups()

// What a generator prints: read and validated line by line as chimed's GeneratorSource does it, each line a JSON
// object with the keys of a notification file.
Fuzzer.run { input in
    let loader = NotificationLoader(systemZone: Fuzzer.zones[1], zones: zones, calendarCache: CalendarCache())
    _ = GeneratorOutput.validated(parsing: Array(input), path: "/etc/chime/generators.d/fuzz", by: loader)
}
