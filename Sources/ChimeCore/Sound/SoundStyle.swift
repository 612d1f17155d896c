/// How a notification's sound plays where chime plays it itself (`chimed --user` through the person's audio
/// server): `Ring=`, `Volume=`, `FadeIn=`, and speech, `Speak=` and `Language=` (chime.notification(5)).
public struct SoundStyle: Sendable, Equatable {
    /// How long the sound rings.
    public enum Ring: Sendable, Equatable {
        /// Once, as long as the sound lasts: no `Ring=`.
        case once
        /// Again from its start until the span is over (`Ring=30s`).
        case span(Duration)
        /// Until the notification is answered (clicked, dismissed, acknowledged, removed), at most as long as
        /// chimed.conf's `[Sound] RingLimitSec=` (`Ring=until-answered`).
        case untilAnswered
    }

    public var ring = Ring.once
    /// From 0 to 100 percent of the sound as recorded; `nil`: chimed.conf's `[Sound] Volume=`.
    public var volume: Int?
    /// How long the volume rises from silence at the start; zero: at once.
    public var fadeIn: Duration = .zero
    /// `Speak=yes`: the title and body are read aloud (after the sound, if there is one).
    public var speaks = false
    /// `Language=`: the language they are read in (`de`, `en-GB`); `nil`: the locale's.
    public var language: String?

    public init(
        ring: Ring = .once, volume: Int? = nil, fadeIn: Duration = .zero, speaks: Bool = false, language: String? = nil
    ) {
        self.ring = ring
        self.volume = volume
        self.fadeIn = fadeIn
        self.speaks = speaks
        self.language = language
    }

    /// `Language=`: a language tag (`de`, `pt-BR`, `en_GB`): letters, then parts of letters and digits after `-` or
    /// `_`, at most 35 characters.
    public static func isValidLanguage(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).flatMap {
            $0.split(separator: "_", omittingEmptySubsequences: false)
        }
        guard text.utf8.count <= 35, let first = parts.first, (2...8).contains(first.count),
            first.allSatisfy({ $0.isASCII && $0.isLetter })
        else { return false }
        return parts.dropFirst().allSatisfy { part in
            (1...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }

    /// How long `FadeIn=yes` takes.
    public static let gentleFadeIn = Duration.seconds(10)

    /// Whether it asks for more than the sound played once as it is: what only chime, not a notification server's
    /// own sound, can give.
    public var needsChime: Bool { self != SoundStyle() }

    /// `Ring=`: a time span of a second or more, or `until-answered`.
    public static func ring(parsing text: String) -> Ring? {
        if text == "until-answered" { return .untilAnswered }
        guard let span = try? Timespan.parse(text), span.microseconds >= 1_000_000, !span.isInfinite,
            let duration = span.duration
        else { return nil }
        return .span(duration)
    }

    /// `Volume=`: a percentage from 0 to 100, with or without `%`.
    public static func volume(parsing text: String) -> Int? {
        let digits = text.hasSuffix("%") ? text.dropLast() : text[...]
        guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy(\.isASCIIDigit), let value = Int(digits),
            value <= 100
        else { return nil }
        return value
    }

    /// `FadeIn=`: a time span up to ten minutes, `yes` (`gentleFadeIn`) or `no`.
    public static func fadeIn(parsing text: String) -> Duration? {
        switch text {
        case "yes", "true", "on", "1": return gentleFadeIn
        case "no", "false", "off", "0": return .zero
        default:
            guard let span = try? Timespan.parse(text), !span.isInfinite, let duration = span.duration,
                duration <= .seconds(600)
            else { return nil }
            return duration
        }
    }

    /// The `Ring=` value that reads back as `ring`; `nil` for `once`.
    public static func text(of ring: Ring) -> String? {
        switch ring {
        case .once: nil
        case .span(let duration): Timespan(duration)?.description
        case .untilAnswered: "until-answered"
        }
    }
}
