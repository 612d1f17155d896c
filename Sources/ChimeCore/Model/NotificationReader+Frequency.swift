extension NotificationReader {
    /// Refuses a trigger that could fire more often than the loader's `minimumInterval`, at the first value of the
    /// key that could: a notification due every microsecond would take the whole daemon.
    mutating func checkFrequency(of trigger: Trigger) {
        let floor = loader.minimumInterval
        guard let (key, index) = trigger.valueFiringMoreOftenThan(floor) else { return }
        let entries = values(key)
        guard let entry = entries.indices.contains(index) ? entries[index] : entries.last else { return }
        let span = Timespan(floor).map { "\($0)" } ?? "\(floor)"
        error(
            valueLocation(of: entry),
            "\(key.rawValue)= '\(entry.value)' can fire more often than once every \(span), the shortest interval "
                + "taken (\(loader.minimumIntervalSetting)).")
    }
}
