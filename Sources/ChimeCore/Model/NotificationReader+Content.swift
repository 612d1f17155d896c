import Foundation

/// Reading `[Notification]`: the content, the repeats, the actions.
extension NotificationReader {
    /// `Repeat=`: time spans separated by spaces, each one word (`5min 10min 30min`), each at least a second.
    mutating func readRepeats(_ entry: NotificationAssignment, into notification: inout ScheduledNotification) {
        let words = entry.value.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard words.count <= NotificationLoader.maximumRepeats else {
            error(
                valueLocation(of: entry),
                "Invalid Repeat= '\(entry.value)': at most \(NotificationLoader.maximumRepeats) time spans.")
            return
        }
        var repeats: [Duration] = []
        for word in words {
            guard let span = try? Timespan.parse(String(word)), span.microseconds >= 1_000_000, !span.isInfinite,
                let duration = span.duration
            else {
                error(
                    valueLocation(of: entry),
                    "Invalid Repeat= '\(entry.value)': '\(word)' is not a time span of a second or more; give "
                        + "spans such as '5min 10min 30min', each one word.")
                return
            }
            repeats.append(duration)
        }
        notification.repeats = repeats
    }

    /// `Ring=`, `Volume=`, `FadeIn=`, `Speak=`, `Language=`: how chime plays the sound and reads the text aloud
    /// (`SoundStyle`).
    mutating func readSoundStyle(into notification: inout ScheduledNotification) {
        var style = SoundStyle()
        if let entry = single(.ring) {
            if let ring = SoundStyle.ring(parsing: entry.value) {
                style.ring = ring
            } else {
                error(
                    valueLocation(of: entry),
                    "Invalid Ring= '\(entry.value)': expected a time span of a second or more, or until-answered.")
            }
        }
        if let entry = single(.volume) {
            if let volume = SoundStyle.volume(parsing: entry.value) {
                style.volume = volume
            } else {
                error(
                    valueLocation(of: entry), "Invalid Volume= '\(entry.value)': expected a percentage from 0 to 100.")
            }
        }
        if let entry = single(.fadeIn) {
            if let fadeIn = SoundStyle.fadeIn(parsing: entry.value) {
                style.fadeIn = fadeIn
            } else {
                error(
                    valueLocation(of: entry),
                    "Invalid FadeIn= '\(entry.value)': expected yes, no, or a time span of at most 10min.")
            }
        }
        if let entry = single(.speak) { style.speaks = boolean(entry) ?? false }
        if let entry = single(.language) {
            if SoundStyle.isValidLanguage(entry.value) {
                style.language = entry.value
            } else {
                error(
                    valueLocation(of: entry),
                    "Invalid Language= '\(entry.value)': expected a language tag such as de, en-GB or pt_BR.")
            }
        }
        guard style.needsChime else { return }
        notification.soundStyle = style
        if notification.sound == nil, !style.speaks, let entry = single(.ring) ?? single(.volume) ?? single(.fadeIn) {
            warning(
                valueLocation(of: entry),
                "\(entry.key.rawValue)= has no sound to ring without Sound=; give Sound=default for the theme's alarm.")
        }
    }

    mutating func readContent(into notification: inout ScheduledNotification) {
        if let entry = single(.body) { notification.body = loader.sharedTexts?.shared(entry.value) ?? entry.value }
        if let entry = single(.icon) { notification.icon = entry.value }
        if let entry = single(.category) { notification.category = entry.value }
        if let entry = single(.sound) { notification.sound = entry.value }
        readSoundStyle(into: &notification)
        if let entry = single(.thread) {
            if NotificationLoader.isValidThread(entry.value) {
                notification.thread = entry.value
            } else {
                error(
                    valueLocation(of: entry),
                    "Invalid Thread= '\(entry.value)': expected a name of at most 255 bytes without control characters."
                )
            }
        }
        if let entry = single(.interruptionLevel) {
            if let level = ScheduledNotification.InterruptionLevel(rawValue: entry.value) {
                notification.interruptionLevel = level
                notification.urgency = level.defaultUrgency
            } else {
                error(
                    valueLocation(of: entry),
                    "Invalid InterruptionLevel= '\(entry.value)': expected passive, active, time-sensitive or critical."
                )
            }
        }
        // An explicit Urgency= wins over the level's for the desktop; the level still decides focus.
        if let entry = single(.urgency) {
            if let urgency = ScheduledNotification.Urgency(rawValue: entry.value) {
                notification.urgency = urgency
            } else {
                error(valueLocation(of: entry), "Invalid Urgency= '\(entry.value)': expected low, normal or critical.")
            }
        }
        if let entry = single(.badge) {
            if let badge = ScheduledNotification.BadgeChange(parsing: entry.value) {
                notification.badge = badge
            } else {
                error(valueLocation(of: entry), "Invalid Badge= '\(entry.value)': expected N, +N, -N or clear.")
            }
        }
        if let entry = single(.snoozeSec) {
            if let span = try? Timespan.parse(entry.value), span.microseconds > 0, !span.isInfinite,
                let duration = span.duration
            {
                notification.snooze = duration
            } else {
                error(valueLocation(of: entry), "Invalid SnoozeSec= '\(entry.value)': expected a time span above zero.")
            }
        }
        if let entry = single(.repeats) { readRepeats(entry, into: &notification) }
        if let entry = single(.dismissAcknowledges) {
            notification.dismissAcknowledges = boolean(entry) ?? true
        }
        if let entry = single(.enabled) { notification.isEnabled = boolean(entry) ?? true }
        readActions(into: &notification)
        // Gathered first and set once: the notification keeps the pairs packed, written from the parts of the
        // values where they lie, without a string made of each.
        var info: [(key: Substring, value: Substring)] = []
        let entries = values(.info)
        info.reserveCapacity(entries.count)
        for entry in entries {
            guard let equals = entry.value.utf8.firstIndex(of: UInt8(ascii: "=")),
                Self.isValidInfoKey(entry.value[..<equals])
            else {
                error(
                    valueLocation(of: entry),
                    "Invalid Info= '\(entry.value)': expected KEY=VALUE with a KEY of letters, digits and '_'.")
                continue
            }
            let key = entry.value[..<equals]
            let value = entry.value[entry.value.utf8.index(after: equals)...]
            if info.contains(where: { $0.key == key }) { info.removeAll { $0.key == key } }
            info.append((key, value))
        }
        if !info.isEmpty { notification.setInfo(info) }
        for entry in values(.deliver) {
            do {
                for name in try assignments.words(of: entry) where !notification.backends.contains(name) {
                    notification.backends.append(name)
                    // A misspelt backend guarantees a missed reminder: the notification is left out, as
                    // `chimectl add --deliver` refuses it, and the rest load.
                    if let known = loader.knownBackends, !known.contains(name) {
                        error(
                            valueLocation(of: entry),
                            "Deliver= names '\(name)', which is no backend of this instance; leaving the notification "
                                + "out."
                                + Suggestion.didYouMean(name, among: known)
                                + " Backends: \(known.joined(separator: ", ")).")
                    }
                }
            } catch {
                diagnostics.append(error)
            }
        }
    }

    mutating func readActions(into notification: inout ScheduledNotification) {
        for entry in values(.action) {
            guard let colon = entry.value.firstIndex(of: ":"), Self.isValidActionKey(entry.value[..<colon]),
                !entry.value[entry.value.index(after: colon)...].isEmpty
            else {
                error(valueLocation(of: entry), "Invalid Action= '\(entry.value)': expected KEY:Label.")
                continue
            }
            let key = String(entry.value[..<colon])
            notification.actions.removeAll { $0.key == key }
            notification.actions.append(.init(key: key, label: String(entry.value[entry.value.index(after: colon)...])))
        }
        for entry in values(.execAction) {
            guard let colon = entry.value.firstIndex(of: ":"), Self.isValidActionKey(entry.value[..<colon]) else {
                error(valueLocation(of: entry), "Invalid ExecAction= '\(entry.value)': expected KEY:COMMAND.")
                continue
            }
            let key = String(entry.value[..<colon])
            var location = valueLocation(of: entry)
            if let column = location.column { location.column = column + key.count + 1 }
            do {
                let argv = try WordSplitter.split(String(entry.value[entry.value.index(after: colon)...]), at: location)
                guard let program = argv.first, program.hasPrefix("/") else {
                    error(location, "ExecAction= needs an absolute path to a program, not '\(argv.first ?? "")'.")
                    continue
                }
                notification.actionCommands[key] = argv
            } catch {
                diagnostics.append(error)
            }
        }
        for key in notification.actionCommands.keys.sorted()
        where key != "default" && !notification.actions.contains(where: { $0.key == key }) {
            let entry = values(.execAction).last { $0.value.hasPrefix(key + ":") }
            warning(
                entry.map { location(of: $0) } ?? UnitFileLocation(file: path),
                "ExecAction= for '\(key)', which no Action= offers; it can only be chosen by name.")
        }
    }

    /// systemd's booleans (`UnitFileEntry.boolean`), or an error.
    mutating func boolean(_ entry: NotificationAssignment) -> Bool? {
        guard let value = entry.boolean else {
            error(valueLocation(of: entry), "Invalid \(entry.name)= '\(entry.value)': expected yes or no.")
            return nil
        }
        return value
    }

    // Both decided on the bytes: asked for every Action= and Info= of a million generated notifications.
    static func isValidActionKey(_ key: Substring) -> Bool {
        !key.isEmpty && key.utf8.count <= 64
            && key.utf8.allSatisfy {
                isASCIILetterOrDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
                    || $0 == UInt8(ascii: ".")
            }
    }

    /// Info keys become journal fields (`CHIME_INFO_KEY`): letters, digits and `_`, not starting with a digit.
    static func isValidInfoKey(_ key: Substring) -> Bool {
        guard let first = key.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first), key.utf8.count <= 64
        else {
            return false
        }
        return key.utf8.allSatisfy { isASCIILetterOrDigit($0) || $0 == UInt8(ascii: "_") }
    }

    private static func isASCIILetterOrDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: false
        }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
