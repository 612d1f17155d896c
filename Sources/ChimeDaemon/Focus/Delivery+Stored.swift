import ChimeCore
import Foundation

extension Delivery {
    /// The delivery as `held.json` keeps it: everything a backend shows or acts on, so that it can be delivered
    /// after a restart even if its notification has gone from the schedule meanwhile (the trigger is not kept).
    var storedJSON: JSONValue {
        let notification = self.notification
        var members: [(String, JSONValue)] = [
            ("id", .string(notification.id)), ("title", .string(notification.title)),
            ("fire_time_usec", .number(fireTime.epochMicroseconds)),
        ]
        func add(_ name: String, _ value: String?) {
            if let value, !value.isEmpty { members.append((name, .string(value))) }
        }
        add("body", notification.body)
        if notification.urgency != .normal { add("urgency", notification.urgency.rawValue) }
        if notification.interruptionLevel != .active {
            add("interruption_level", notification.interruptionLevel.rawValue)
        }
        add("icon", notification.icon)
        add("category", notification.category)
        add("sound", notification.sound)
        let style = notification.soundStyle
        add("ring", SoundStyle.text(of: style.ring))
        if let volume = style.volume { members.append(("volume", .number(Int64(volume)))) }
        if style.fadeIn > .zero { members.append(("fade_in_usec", .number(style.fadeIn.wholeMicroseconds))) }
        if style.speaks { members.append(("speak", .bool(true))) }
        add("language", style.language)
        add("thread", notification.thread)
        if !notification.actions.isEmpty {
            members.append(
                ("actions", .array(notification.actions.map { .array([.string($0.key), .string($0.label)]) })))
        }
        if !notification.actionCommands.isEmpty {
            members.append(
                (
                    "action_commands",
                    .object(
                        notification.actionCommands.sorted { $0.key < $1.key }.map {
                            ($0.key, .array($0.value.map(JSONValue.string)))
                        })
                ))
        }
        members.append(("snooze_usec", .number(notification.snooze.wholeMicroseconds)))
        if !notification.info.isEmpty {
            members.append(("info", .array(notification.info.map { .array([.string($0.key), .string($0.value)]) })))
        }
        if !notification.backends.isEmpty {
            members.append(("backends", .array(notification.backends.map(JSONValue.string))))
        }
        if missedCount > 0 { members.append(("missed", .number(Int64(missedCount)))) }
        if let badge { members.append(("badge", .number(Int64(badge)))) }
        if isSnoozed { members.append(("snoozed", .bool(true))) }
        if repeatNumber > 0 { members.append(("repeat", .number(Int64(repeatNumber)))) }
        if !notification.repeats.isEmpty {
            members.append(("repeats_usec", .array(notification.repeats.map { .number($0.wholeMicroseconds) })))
        }
        if !notification.dismissAcknowledges { members.append(("dismiss_acknowledges", .bool(false))) }
        if isSoundSuppressed { members.append(("sound_suppressed", .bool(true))) }
        if !finishedBackends.isEmpty {
            members.append(("finished_backends", .array(finishedBackends.sorted().map(JSONValue.string))))
        }
        switch origin {
        case .file: break
        case .generator: add("origin", "generator")
        case .added: add("origin", "added")
        case .application(let appID, let id):
            add("origin", "application")
            add("app_id", appID)
            add("app_request", id)
        }
        return .object(members)
    }

    /// Reads what `storedJSON` wrote (as `JSONSerialization` parses it); `nil` when it is not such an object.
    init?(stored object: [String: Any]) {
        guard let id = object["id"] as? String, let title = object["title"] as? String,
            let fireTime = (object["fire_time_usec"] as? NSNumber)?.int64Value
        else { return nil }
        var notification = ScheduledNotification(id: id, title: title, trigger: Trigger())
        notification.body = object["body"] as? String ?? ""
        if let text = object["urgency"] as? String, let urgency = ScheduledNotification.Urgency(rawValue: text) {
            notification.urgency = urgency
        }
        if let text = object["interruption_level"] as? String,
            let level = ScheduledNotification.InterruptionLevel(rawValue: text)
        {
            notification.interruptionLevel = level
        }
        notification.icon = object["icon"] as? String
        notification.category = object["category"] as? String
        notification.sound = object["sound"] as? String
        var style = SoundStyle()
        if let ring = object["ring"] as? String { style.ring = SoundStyle.ring(parsing: ring) ?? .once }
        if let volume = (object["volume"] as? NSNumber)?.intValue, (0...100).contains(volume) { style.volume = volume }
        if let fadeIn = (object["fade_in_usec"] as? NSNumber)?.int64Value, fadeIn > 0, fadeIn <= 600_000_000 {
            style.fadeIn = .microseconds(fadeIn)
        }
        style.speaks = object["speak"] as? Bool ?? false
        if let language = object["language"] as? String, SoundStyle.isValidLanguage(language) {
            style.language = language
        }
        if style.needsChime { notification.soundStyle = style }
        notification.thread = object["thread"] as? String
        notification.actions = (object["actions"] as? [[String]] ?? []).compactMap { pair in
            pair.count == 2 ? ScheduledNotification.Action(key: pair[0], label: pair[1]) : nil
        }
        notification.actionCommands = object["action_commands"] as? [String: [String]] ?? [:]
        if let snooze = (object["snooze_usec"] as? NSNumber)?.int64Value, snooze > 0 {
            notification.snooze = .microseconds(snooze)
        }
        notification.info = (object["info"] as? [[String]] ?? []).compactMap { pair in
            pair.count == 2 ? (pair[0], pair[1]) : nil
        }
        notification.backends = object["backends"] as? [String] ?? []
        self.init(
            notification: notification, fireTime: Date(epochMicroseconds: fireTime),
            missedCount: (object["missed"] as? NSNumber)?.intValue ?? 0)
        badge = (object["badge"] as? NSNumber)?.intValue
        isSnoozed = object["snoozed"] as? Bool ?? false
        repeatNumber = (object["repeat"] as? NSNumber)?.intValue ?? 0
        self.notification.repeats = (object["repeats_usec"] as? [NSNumber] ?? []).map {
            .microseconds($0.int64Value)
        }
        self.notification.dismissAcknowledges = object["dismiss_acknowledges"] as? Bool ?? true
        isSoundSuppressed = object["sound_suppressed"] as? Bool ?? false
        finishedBackends = Set(object["finished_backends"] as? [String] ?? [])
        switch object["origin"] as? String {
        case "generator": origin = .generator
        case "added": origin = .added
        case "application":
            if let appID = object["app_id"] as? String, let request = object["app_request"] as? String {
                origin = .application(appID: appID, id: request)
            }
        default: origin = .file
        }
    }
}
