import ChimeCore

/// The `OnCalendar=` events the installed schedule's load parsed (its `CalendarCache`), lent to the next load to take
/// before parsing (`CalendarCache(previous:)`). A rebuild then gives the notifications it reads again the lists
/// those installed hold: nothing parsed twice, nothing kept twice, and a trigger read again told unchanged without
/// being compared. Only for a load that reads alike (`LoadContext`): an event is a function of its text, the zone it
/// is read in and the rules of the zones it names.
struct CalendarReuse: Sendable {
    let cache: CalendarCache
    let context: LoadContext

    /// What `loaded` can lend the next load; `nil` when it kept no events.
    init?(_ loaded: LoadedSchedule) {
        guard let cache = loaded.reusable.calendarCache else { return nil }
        self.cache = cache
        context = loaded.reusable.context
    }

    /// The cache for `loader` to carry, when what was parsed then reads alike now.
    func cache(for loader: NotificationLoader) -> CalendarCache? {
        context.readsAlike(loader) ? cache : nil
    }
}
