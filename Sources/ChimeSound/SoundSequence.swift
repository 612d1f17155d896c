import ChimeCore
import ChimeDaemon

/// The sound, then the speech, of one notification: stopping it stops the part playing and what would follow.
final class SoundSequence: SoundStopping, Sendable {
    private let state = Locked<(stopped: Bool, current: SoundRinging?)>((false, nil))

    var isStopped: Bool { state.withLock { $0.stopped } }

    /// `ringing` is the part playing now; stopped at once if the sequence already is.
    func playing(_ ringing: SoundRinging) {
        let stopped = state.withLock { state in
            state.current = ringing
            return state.stopped
        }
        if stopped { ringing.stop() }
    }

    func stop() {
        let current = state.withLock { state in
            state.stopped = true
            return state.current
        }
        current?.stop()
    }
}
