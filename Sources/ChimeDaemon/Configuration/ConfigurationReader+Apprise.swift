import ChimeCore
import Glibc

extension ConfigurationReader {
    /// `[Apprise]`: `URL=` (repeatable; an empty one clears the list), `ConfigFile=` (a file that may hold secrets:
    /// refused unless root or chimed's user owns it and others can neither read nor write it), `TimeoutSec=`. URLs
    /// are never quoted in messages: they may carry tokens.
    mutating func apprise(_ section: UnitFileSection, into settings: inout AppriseSettings, trust: FileTrust) {
        for entry in section.entries where entry.key == "URL" {
            guard !entry.value.isEmpty else {
                settings.urls.removeAll()
                continue
            }
            guard let scheme = entry.value.range(of: "://").map({ entry.value[..<$0.lowerBound] }), !scheme.isEmpty,
                scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-") }),
                !entry.value.contains(where: { $0.isWhitespace })
            else {
                error(entry.valueLocation, "Invalid URL=: expected an apprise URL such as ntfy://host/topic; ignoring.")
                continue
            }
            settings.urls.append(entry.value)
        }
        if let entry = section.entries.last(where: { $0.key == "ConfigFile" }) {
            if entry.value.isEmpty {
                settings.configFile = nil
            } else if !entry.value.hasPrefix("/") {
                error(entry.valueLocation, "ConfigFile= needs an absolute path, not '\(entry.value)'; ignoring.")
            } else if let objection = trust.secretObjection(to: entry.value) {
                error(entry.valueLocation, "ConfigFile= \(entry.value): \(objection)")
            } else {
                settings.configFile = entry.value
            }
        }
        if let entry = single("TimeoutSec", in: section), let value = duration(entry) { settings.timeout = value }
    }
}

extension FileTrust {
    /// Why a file that may hold secrets (an apprise configuration) must not be used: what `objection` says of any
    /// file chimed reads, or that others can read it; `nil` when it may be used.
    func secretObjection(to path: String) -> String? {
        if let objection = objection(to: path, subject: "the file", action: "use it") { return objection }
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IROTH != 0 else { return nil }
        return "the file is readable by others and may hold secrets; refusing to use it (chmod o-r \(path))."
    }
}
