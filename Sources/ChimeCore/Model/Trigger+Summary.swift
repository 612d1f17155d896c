extension Trigger {
    /// One line saying what makes the notification fire, in the file's own terms
    /// (`OnCalendar=Mon..Fri *-*-* 09:55:00 Every=15min Count=7`).
    public var summary: String {
        var parts: [String] = []
        if !instants.isEmpty {
            parts.append("At=" + instants.map { Timestamp.iso8601($0) }.joined(separator: ","))
        }
        parts += calendars.map { "OnCalendar=\($0)" }
        if let interval { parts.append("Every=\(interval)") }
        if let recurrence {
            parts += recurrence.rules.map { "RRule=\($0.text)" }
            if !recurrence.dates.isEmpty {
                parts.append("RDate=" + recurrence.dates.map(\.rfc5545).joined(separator: ","))
            }
            if !recurrence.exclusions.isEmpty {
                parts.append("ExDate=" + recurrence.exclusions.map(\.rfc5545).joined(separator: ","))
            }
        }
        if let offset = recurrence?.offset { parts.append("Offset=\(offset)") }
        if let from { parts.append("From=" + Timestamp.iso8601(from)) }
        if let count { parts.append("Count=\(count)") }
        if let until { parts.append("Until=" + Timestamp.iso8601(until)) }
        if let timeZone { parts.append("TimeZone=\(timeZone.name)") }
        if isPersistent { parts.append("Persistent=yes") }
        return parts.joined(separator: " ")
    }
}
