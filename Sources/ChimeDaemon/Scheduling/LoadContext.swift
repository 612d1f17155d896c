import ChimeCore

/// What a load's notifications depend on besides their own bytes: the system zone, what the zone files it read
/// said, the backends `Deliver=` may name, why `WakeSystem=yes` cannot be honoured, if it cannot, and the shortest
/// interval taken. What was
/// loaded under one context loads the same under another that reads alike, so a rebuild may take it as it was
/// (`GeneratorReuse`, `FileReuse`).
struct LoadContext: Sendable {
    var systemZone: ZoneRules
    var zoneLookups: ZoneDatabase.Lookups
    var knownBackends: [String]?
    var wakeSystemRefusal: String?
    var minimumInterval: Duration

    /// What `loader` read under, with the zones it looked up.
    init(_ loader: NotificationLoader) {
        systemZone = loader.systemZone
        zoneLookups = loader.zones.lookups
        knownBackends = loader.knownBackends
        wakeSystemRefusal = loader.wakeSystemRefusal
        minimumInterval = loader.minimumInterval
    }

    /// A schedule made otherwise than by a load: nothing looked up, the defaults.
    init(systemZone: ZoneRules) {
        self.systemZone = systemZone
        zoneLookups = ZoneDatabase.Lookups()
        minimumInterval = InputLimits.defaultMinimumInterval
    }

    /// Whether what was loaded then would be read the same by `loader`. Asking looks the earlier zones up again in
    /// `loader`'s database, so that the load's own lookups include them for the rebuild after.
    func readsAlike(_ loader: NotificationLoader) -> Bool {
        knownBackends == loader.knownBackends && wakeSystemRefusal == loader.wakeSystemRefusal
            && minimumInterval == loader.minimumInterval
            && systemZone.hasSameRules(as: loader.systemZone) && loader.zones.answersAlike(zoneLookups)
    }
}
