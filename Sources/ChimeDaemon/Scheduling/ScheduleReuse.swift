import ChimeCore

/// What the installed schedule's load lends the next load, as one value: the generators' output
/// (`GeneratorReuse`), the notifications read from files (`FileReuse`) and the calendar events parsed
/// (`CalendarReuse`), each taken only where the next load reads alike (`LoadContext`). Made where a rebuild is
/// installed, handed whole to the next load (`ScheduleLoader.reuse`), and freed whole, off the scheduler's queue,
/// when the schedule after it is installed.
struct ScheduleReuse: Sendable {
    var generators: GeneratorReuse?
    var files: FileReuse?
    var calendars: CalendarReuse?

    /// Nothing to reuse: a first load.
    init() {}

    /// What `loaded` can lend: cheap, since each part holds what the schedule holds too.
    init(_ loaded: LoadedSchedule) {
        generators = GeneratorReuse(loaded)
        files = FileReuse(loaded)
        calendars = CalendarReuse(loaded)
    }
}

/// What a load notes for the next one to reuse (`ScheduleReuse`), besides its notifications: what it read them
/// under, each generator's part, whether files were read, the calendar events it parsed.
struct ReusableParts: Sendable {
    var context: LoadContext
    /// Each generator's contribution, by path, for `GeneratorReuse`.
    var generatorOutputs: [String: GeneratorOutputRecord] = [:]
    /// Whether some notification was read from files and keeps their fingerprint (`FileReuse`).
    var readFiles = false
    /// The events parsed, for the next load to carry (`CalendarReuse`).
    var calendarCache: CalendarCache?
}
