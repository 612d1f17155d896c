/// chimed.conf `[Sound]`: how the user instance plays sounds itself.
public struct SoundSettings: Sendable, Equatable {
    /// `Theme=`: the XDG sound theme names are looked up in (it inherits `freedesktop`).
    public var theme = "freedesktop"
    /// `Volume=`: the volume of a sound whose notification gives no `Volume=`, in percent.
    public var volume = 100
    /// `RingLimitSec=`: how long `Ring=until-answered` rings at most, and the longest any `Ring=` rings.
    public var ringLimit = Duration.seconds(600)

    public init() {}

    /// A theme is a directory of the sound base directories: one name, no path.
    static func isValidTheme(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && !name.hasPrefix(".") && !name.contains("/")
            && name.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F }
    }
}
