import CGStreamer
import ChimeCore
import Foundation

/// Where the file of a sound name is, as the XDG Sound Theme specification lays themes out: under `sounds/` of the
/// XDG data directories, a theme is a directory with an `index.theme` (read with GLib's key-file reader, the one
/// made for that syntax) naming its subdirectories, their output profiles and the themes it inherits from.
///
/// A name is looked for in the theme, then in the themes it inherits from, then in `freedesktop`, then among the
/// unthemed sounds (files directly under a `sounds/` directory); within a theme in the requested output profile,
/// then in `stereo`; in the language of `LC_MESSAGES` (whole, then without `@…`, then without `_…`), in `C`,
/// and without one. A name not found anywhere is looked for again without its last `-` part (the Naming
/// specification's `alarm-clock-elapsed` falls back to `alarm-clock`, then `alarm`). A `.disabled` file turns a
/// sound off.
public struct SoundTheme: Sendable {
    /// What a lookup found.
    public enum Lookup: Equatable, Sendable {
        case file(String)
        /// The theme turns the sound off: nothing is played.
        case disabled
    }

    public let name: String
    public let baseDirectories: [String]
    public let locale: String?
    public let outputProfile: String

    /// The extensions of sound files, as the specification orders them.
    static let extensions = [".disabled", ".oga", ".ogg", ".wav"]
    /// Themes inherit at most this deep: a theme that inherits from itself in a loop is read once.
    static let maximumThemes = 16

    public init(
        name: String = "freedesktop", baseDirectories: [String], locale: String? = nil, outputProfile: String = "stereo"
    ) {
        self.name = name
        self.baseDirectories = baseDirectories
        self.locale = locale
        self.outputProfile = outputProfile
    }

    /// The base directories of `environment`: `sounds/` of `XDG_DATA_HOME` (default `~/.local/share`), then of
    /// each of `XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`).
    public static func baseDirectories(environment: [String: String]) -> [String] {
        var data: [String] = []
        if let home = environment["XDG_DATA_HOME"], home.hasPrefix("/") {
            data.append(home)
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            data.append(home + "/.local/share")
        }
        let shared = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        data += shared.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        return data.map { $0 + "/sounds" }
    }

    /// The language of sounds from `environment`, as `LC_MESSAGES` resolves: `LC_ALL`, `LC_MESSAGES`, `LANG`.
    public static func locale(environment: [String: String]) -> String? {
        MessageLocale.resolve(environment)
    }

    /// The file of sound `sound`, whether it is turned off, or `nil` when no theme has it.
    public func lookup(_ sound: String) -> Lookup? {
        guard Self.isValidName(sound) else { return nil }
        let themes = themeChain()
        var name = Substring(sound)
        while true {
            for theme in themes {
                if let found = find(name, in: theme) { return found }
            }
            if let found = findUnthemed(name) { return found }
            guard let dash = name.lastIndex(of: "-") else { return nil }
            name = name[..<dash]
        }
    }

    /// Whether `name` can be a sound's name: no path, nothing hidden.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".") && !name.hasPrefix("-") && !name.contains("/")
            && !name.contains("\0")
    }

    /// The language variants to look in, most specific first; the empty one stands for none.
    var localeVariants: [String] {
        var variants: [String] = []
        if var locale, !locale.isEmpty, !locale.contains("/") {
            // `de_DE.UTF-8@euro`: the encoding is not part of a sound's language.
            if let dot = locale.firstIndex(of: ".") {
                let modifier = locale.firstIndex(of: "@").map { String(locale[$0...]) } ?? ""
                locale = String(locale[..<dot]) + modifier
            }
            variants.append(locale)
            if let at = locale.firstIndex(of: "@") { locale = String(locale[..<at]) }
            if !variants.contains(locale) { variants.append(locale) }
            if let underscore = locale.firstIndex(of: "_") { locale = String(locale[..<underscore]) }
            if !variants.contains(locale) { variants.append(locale) }
        }
        for fallback in ["C", ""] where !variants.contains(fallback) { variants.append(fallback) }
        return variants
    }

    /// The theme, those it inherits from (depth first, each once), and `freedesktop` last.
    func themeChain() -> [ThemeIndex] {
        var chain: [ThemeIndex] = []
        var seen = Set<String>()
        func visit(_ theme: String) {
            guard chain.count < Self.maximumThemes, Self.isValidName(theme), seen.insert(theme).inserted,
                let index = ThemeIndex(theme: theme, baseDirectories: baseDirectories)
            else { return }
            chain.append(index)
            for parent in index.inherits { visit(parent) }
        }
        visit(name)
        if !seen.contains("freedesktop") { visit("freedesktop") }
        return chain
    }

    private func find(_ name: Substring, in theme: ThemeIndex) -> Lookup? {
        for profile in [outputProfile, "stereo"].uniqued() {
            for directory in theme.directories where directory.profile == profile {
                for base in baseDirectories {
                    let path = "\(base)/\(theme.name)/\(directory.name)"
                    for variant in localeVariants {
                        let folder = variant.isEmpty ? path : "\(path)/\(variant)"
                        if let found = file(name, in: folder) { return found }
                    }
                }
            }
        }
        return nil
    }

    private func findUnthemed(_ name: Substring) -> Lookup? {
        for base in baseDirectories {
            if let found = file(name, in: base) { return found }
        }
        return nil
    }

    private func file(_ name: Substring, in folder: String) -> Lookup? {
        for fileExtension in Self.extensions {
            let path = "\(folder)/\(name)\(fileExtension)"
            guard FileManager.default.fileExists(atPath: path) else { continue }
            return fileExtension == ".disabled" ? .disabled : .file(path)
        }
        return nil
    }
}

/// A theme's `index.theme`: the first one found among the base directories describes the theme.
struct ThemeIndex: Sendable {
    struct Directory: Sendable {
        let name: String
        /// `OutputProfile=`, `stereo` when unset.
        let profile: String
    }

    let name: String
    let directories: [Directory]
    let inherits: [String]

    init?(theme: String, baseDirectories: [String]) {
        for base in baseDirectories {
            let path = "\(base)/\(theme)/index.theme"
            guard FileManager.default.fileExists(atPath: path), let file = g_key_file_new() else { continue }
            defer { g_key_file_free(file) }
            g_key_file_set_list_separator(file, CChar(UInt8(ascii: ",")))
            guard g_key_file_load_from_file(file, path, G_KEY_FILE_NONE, nil) != 0 else { continue }
            name = theme
            directories = Self.list(file, "Sound Theme", "Directories").map { directory in
                let profile = g_key_file_get_string(file, directory, "OutputProfile", nil)
                defer { g_free(profile) }
                return Directory(name: directory, profile: profile.map { String(cString: $0) } ?? "stereo")
            }.filter { SoundTheme.isValidName($0.name) }
            inherits = Self.list(file, "Sound Theme", "Inherits")
            return
        }
        return nil
    }

    /// A list key: comma-separated as the specification says, and split at spaces too, as some themes write them.
    private static func list(_ file: OpaquePointer, _ group: String, _ key: String) -> [String] {
        var count: gsize = 0
        guard let values = g_key_file_get_string_list(file, group, key, &count, nil) else { return [] }
        defer { g_strfreev(values) }
        return (0..<Int(count)).flatMap { index -> [String] in
            guard let value = values[index] else { return [] }
            return String(cString: value).split(whereSeparator: \.isWhitespace).map(String.init)
        }
    }
}

extension Array where Element: Hashable {
    fileprivate func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
