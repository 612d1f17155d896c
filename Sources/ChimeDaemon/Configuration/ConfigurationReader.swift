import ChimeCore
import Foundation

/// Reads values of chimed.conf, collecting diagnostics.
struct ConfigurationReader {
    var diagnostics: [UnitFileDiagnostic] = []

    mutating func error(_ location: UnitFileLocation, _ message: String) {
        diagnostics.append(UnitFileDiagnostic(.error, at: location, message))
    }

    mutating func warning(_ location: UnitFileLocation, _ message: String) {
        diagnostics.append(UnitFileDiagnostic(.warning, at: location, message))
    }

    mutating func words(_ entry: UnitFileEntry) -> [String]? {
        do {
            let words = try entry.words()
            for word in words where !Self.isValidName(word) {
                error(entry.valueLocation, "Invalid backend name '\(word)' in \(entry.key)=.")
                return nil
            }
            return words.isEmpty ? nil : words
        } catch {
            diagnostics.append(error)
            return nil
        }
    }

    /// Backend names: letters, digits, `-` and `_`, as `Deliver=` and journal fields carry them.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || "0123456789-_".unicodeScalars.contains($0))
            }
    }

    /// The last non-empty value of `key` in `section` (an empty assignment resets to the default).
    func single(_ key: String, in section: UnitFileSection) -> UnitFileEntry? {
        var found: UnitFileEntry?
        for entry in section.entries where entry.key == key { found = entry.value.isEmpty ? nil : entry }
        return found
    }

    mutating func boolean(_ entry: UnitFileEntry) -> Bool? {
        guard let value = entry.boolean else {
            error(entry.valueLocation, "Invalid \(entry.key)= '\(entry.value)': expected yes or no; ignoring.")
            return nil
        }
        return value
    }

    /// A time span above zero (`TimeoutSec=`, `RetrySec=`…); plain numbers are seconds, as in systemd.
    mutating func duration(_ entry: UnitFileEntry) -> Duration? {
        if let span = try? Timespan.parse(entry.value), span.microseconds > 0, let duration = span.duration {
            return duration
        }
        error(entry.valueLocation, "Invalid \(entry.key)= '\(entry.value)': expected a time span above zero; ignoring.")
        return nil
    }

    /// A whole number above zero.
    mutating func count(_ entry: UnitFileEntry) -> Int? {
        if let value = Int(entry.value), value > 0, entry.value.allSatisfy(\.isASCII) { return value }
        error(
            entry.valueLocation, "Invalid \(entry.key)= '\(entry.value)': expected a whole number above zero; ignoring."
        )
        return nil
    }

    /// A size in bytes as systemd writes them: a number with an optional `K`, `M` or `G` (powers of 1024).
    mutating func size(_ entry: UnitFileEntry) -> Int? {
        let text = entry.value
        let multipliers: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        let multiplier = text.last.flatMap { multipliers[$0] } ?? 1
        let digits = multiplier == 1 ? Substring(text) : text.dropLast()
        if !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(digits),
            value > 0, value <= (1 << 40) / multiplier
        {
            return value * multiplier
        }
        error(
            entry.valueLocation,
            "Invalid \(entry.key)= '\(text)': expected a size above zero such as 65536, 512K, 64M or 1G; ignoring.")
        return nil
    }

    mutating func presentation(_ unit: UnitFile, into settings: inout PresentationSettings) {
        for section in unit.sections where section.name == "Presentation" {
            if let entry = single("Alert", in: section), let value = boolean(entry) { settings.alert = value }
            if let entry = single("Sound", in: section), let value = boolean(entry) { settings.sound = value }
            if let entry = single("Badge", in: section), let value = boolean(entry) { settings.badge = value }
        }
    }

    mutating func sound(_ unit: UnitFile, into settings: inout SoundSettings) {
        for section in unit.sections where section.name == "Sound" {
            if let entry = single("Theme", in: section) {
                if SoundSettings.isValidTheme(entry.value) {
                    settings.theme = entry.value
                } else {
                    error(
                        entry.valueLocation,
                        "Invalid Theme= '\(entry.value)': expected the name of a sound theme's directory; ignoring.")
                }
            }
            if let entry = single("Volume", in: section) {
                if let volume = SoundStyle.volume(parsing: entry.value) {
                    settings.volume = volume
                } else {
                    error(
                        entry.valueLocation,
                        "Invalid Volume= '\(entry.value)': expected a percentage from 0 to 100; ignoring.")
                }
            }
            if let entry = single("RingLimitSec", in: section), let value = duration(entry) {
                if value >= .seconds(1) {
                    settings.ringLimit = value
                } else {
                    error(
                        entry.valueLocation,
                        "Invalid RingLimitSec= '\(entry.value)': expected a second or more; ignoring.")
                }
            }
        }
    }

    /// The name of a `[Command]`/`[Webhook]` section: `Name=`, or the built-in's; `nil` (and an error) when it is
    /// invalid or belongs to a backend of another type.
    mutating func name(of section: UnitFileSection, builtIn: String, taken: [String]) -> String? {
        guard let entry = single("Name", in: section) else { return builtIn }
        guard Self.isValidName(entry.value) else {
            error(
                entry.valueLocation,
                "Invalid Name= '\(entry.value)': use letters, digits, '-' and '_'; ignoring this [\(section.name)].")
            return nil
        }
        guard !taken.contains(entry.value) else {
            error(
                entry.valueLocation,
                "Name= '\(entry.value)' is already the name of another backend; ignoring this [\(section.name)].")
            return nil
        }
        return entry.value
    }

    mutating func desktop(_ section: UnitFileSection, into settings: inout DesktopSettings) {
        if let entry = single("AppName", in: section) { settings.appName = entry.value }
        if let entry = single("DesktopEntry", in: section) {
            if entry.value.hasSuffix(".desktop") || entry.value.contains("/") {
                error(
                    entry.valueLocation,
                    "Invalid DesktopEntry= '\(entry.value)': give the desktop file's name without '.desktop'; "
                        + "ignoring.")
            } else {
                settings.desktopEntry = entry.value
            }
        }
        if let entry = section.entries.last(where: { $0.key == "ExpireSec" }) {
            if entry.value.isEmpty {
                settings.expire = nil
            } else if let span = try? Timespan.parse(entry.value), !span.isInfinite, let duration = span.duration {
                settings.expire = duration
            } else {
                error(entry.valueLocation, "Invalid ExpireSec= '\(entry.value)': expected a time span; ignoring.")
            }
        }
        if let entry = section.entries.last(where: { $0.key == "Fallback" }) {
            if entry.value.isEmpty {
                settings.fallback = nil
            } else if Self.isValidName(entry.value) {
                settings.fallback = entry.value
            } else {
                error(entry.valueLocation, "Invalid Fallback= '\(entry.value)': expected a backend name; ignoring.")
            }
        }
    }

    mutating func command(_ section: UnitFileSection, into settings: inout CommandSettings) {
        if let entry = section.entries.last(where: { $0.key == "Exec" }) {
            if entry.value.isEmpty {
                settings.argv = []
            } else {
                do {
                    let argv = try entry.words()
                    if let program = argv.first, program.hasPrefix("/") {
                        settings.argv = argv
                    } else {
                        error(
                            entry.valueLocation,
                            "Exec= needs an absolute path to a program, not '\(argv.first ?? "")'; ignoring.")
                    }
                } catch {
                    diagnostics.append(error)
                }
            }
        }
        if let entry = single("TimeoutSec", in: section), let value = duration(entry) { settings.timeout = value }
    }

    mutating func webhook(_ section: UnitFileSection, into settings: inout WebhookSettings) {
        if let entry = section.entries.last(where: { $0.key == "URL" }) {
            if entry.value.isEmpty {
                settings.url = nil
            } else {
                // The URL is not quoted in messages: it may carry a secret token.
                var candidate = WebhookSettings()
                candidate.url = entry.value
                if let problem = candidate.validate() {
                    error(entry.valueLocation, "Invalid URL=: \(problem); ignoring.")
                } else {
                    settings.url = entry.value
                }
            }
        }
        for entry in section.entries where entry.key == "Header" {
            guard !entry.value.isEmpty else {
                settings.headers.removeAll()
                continue
            }
            guard let colon = entry.value.firstIndex(of: ":"), Self.isValidHeaderName(entry.value[..<colon]) else {
                error(entry.valueLocation, "Invalid Header=: expected NAME: VALUE; ignoring.")
                continue
            }
            let name = String(entry.value[..<colon])
            let value = entry.value[entry.value.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            var candidate = WebhookSettings()
            candidate.headers = [.init(name: name, value: value)]
            if let problem = candidate.validate() {
                error(entry.valueLocation, "Invalid Header=: \(problem); ignoring.")
                continue
            }
            settings.headers.removeAll { $0.name.lowercased() == name.lowercased() }
            settings.headers.append(.init(name: name, value: value))
        }
        if let entry = single("TimeoutSec", in: section), let value = duration(entry) { settings.timeout = value }
        if let entry = single("Retries", in: section) {
            if let value = Int(entry.value), (0...100).contains(value) {
                settings.retries = value
            } else {
                error(entry.valueLocation, "Invalid Retries= '\(entry.value)': expected 0 to 100; ignoring.")
            }
        }
        if let entry = single("RetrySec", in: section), let value = duration(entry) { settings.retryDelay = value }
        if let entry = single("RetryMaxSec", in: section), let value = duration(entry) {
            settings.retryMaxDelay = value
        }
    }

    /// An HTTP header name (a token of RFC 9110).
    static func isValidHeaderName(_ name: Substring) -> Bool {
        !name.isEmpty
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || "0123456789!#$%&'*+-.^_`|~".unicodeScalars.contains($0))
            }
    }
}
