import ChimeCore
import FuzzSupport

// What a generator prints: read and validated line by line as chimed's GeneratorSource does it, each line a JSON
// object with the keys of a notification file.
Fuzzer.run { input in
    let loader = NotificationLoader(
        systemZone: Fuzzer.zones[1], zones: ZoneDatabase.system.cachingLookups(), calendarCache: CalendarCache())
    _ = GeneratorOutput.validated(parsing: Array(input), path: "/etc/chime/generators.d/fuzz", by: loader)
}
