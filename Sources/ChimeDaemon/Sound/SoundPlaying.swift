import ChimeCore

/// One sound chime plays: the name or file a notification's `Sound=` gives, and how (`SoundStyle` with chimed.conf's
/// defaults applied).
public struct SoundRequest: Sendable, Equatable {
    /// A sound name of the XDG sound theme, or an absolute file path (`default` is resolved before); `nil`: speech
    /// alone.
    public var sound: String?
    /// The theme names are looked up in.
    public var theme: String
    /// 0 to 100 percent.
    public var volume: Int
    /// How long it rings, played again from its start as often as it fits; `nil`: once.
    public var ringing: Duration?
    public var fadeIn: Duration
    /// Text read aloud after the sound (`Speak=yes`: the title and body).
    public var speech: String?
    /// The language to read it in (`de`, `en-GB`); `nil`: the speech engine's default.
    public var language: String?

    public init(
        sound: String?, theme: String = "freedesktop", volume: Int = 100, ringing: Duration? = nil,
        fadeIn: Duration = .zero, speech: String? = nil, language: String? = nil
    ) {
        self.sound = sound
        self.theme = theme
        self.volume = volume
        self.ringing = ringing
        self.fadeIn = fadeIn
        self.speech = speech
        self.language = language
    }
}

/// How a sound ended.
public enum SoundEnding: Sendable, Equatable {
    /// Played to its end, or rang for as long as asked.
    case played
    /// Stopped before that: the notification was answered.
    case stopped
    /// Not played: no audio server, no such sound, a file that cannot be decoded. The reason names which.
    case failed(String)
}

/// A sound that is playing.
public protocol SoundStopping: Sendable {
    /// Silences it at once (within a few tens of milliseconds).
    func stop()
}

/// Where chime's own sounds are played: the person's audio server, through GStreamer (`ChimeSound`), or a test's
/// recording spy. The one seam between the delivery's sound stage and audio.
public protocol SoundPlaying: Sendable {
    /// Starts `request`; `finished` is called once, on some thread, when it ends.
    func play(_ request: SoundRequest, finished: @escaping @Sendable (SoundEnding) -> Void) -> any SoundStopping
}
