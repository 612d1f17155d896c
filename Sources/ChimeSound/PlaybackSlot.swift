import ChimeCore
import ChimeDaemon

/// A playback from before it started: a stop that comes first stops it as soon as it has.
final class PlaybackSlot: SoundStopping, Sendable {
    private let state = Locked<(sound: (any SoundStopping)?, stopped: Bool)>((nil, false))

    func started(_ sound: any SoundStopping) {
        let stopped = state.withLock { state in
            state.sound = sound
            return state.stopped
        }
        if stopped { sound.stop() }
    }

    func stop() {
        let sound = state.withLock { state in
            state.stopped = true
            return state.sound
        }
        sound?.stop()
    }
}
