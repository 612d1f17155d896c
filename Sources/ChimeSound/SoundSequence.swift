import ChimeCore
import ChimeDaemon

/// A playback whose parts start one after another, or not yet: stopping it stops the part playing and any that
/// would follow, and a stop that comes before a part started stops that part as soon as it does. The sound, then
/// the speech, of one notification (`ThemedSoundPlayer`); a helper's playback before its player answered
/// (`SoundHelperService`).
final class SoundSequence: SoundStopping, Sendable {
    private let state = Locked<(stopped: Bool, current: (any SoundStopping)?)>((false, nil))

    var isStopped: Bool { state.withLock { $0.stopped } }

    /// `sound` is the part playing now; stopped at once if the sequence already is.
    func playing(_ sound: any SoundStopping) {
        let stopped = state.withLock { state in
            state.current = sound
            return state.stopped
        }
        if stopped { sound.stop() }
    }

    func stop() {
        let current = state.withLock { state in
            state.stopped = true
            return state.current
        }
        current?.stop()
    }
}
