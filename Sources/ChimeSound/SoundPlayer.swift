import CGStreamer
import ChimeCore
import ChimeDaemon
import Foundation

/// One sound to play: a file, how loud, and how long it rings.
public struct SoundPlayback: Sendable, Equatable {
    /// An absolute path.
    public var file: String
    /// From 0 (silent) to 1 (the file as it is), linear.
    public var volume: Double
    /// How long the sound rings, played again from its start as often as it fits; `nil`: once.
    public var ringing: Duration?
    /// How long the volume takes to rise from silence to `volume`; zero: at once.
    public var fadeIn: Duration

    public init(file: String, volume: Double = 1, ringing: Duration? = nil, fadeIn: Duration = .zero) {
        self.file = file
        self.volume = volume
        self.ringing = ringing
        self.fadeIn = fadeIn
    }
}

/// A sound that is playing: stopping it silences it within a poll of its bus.
public final class SoundRinging: SoundStopping, Sendable {
    private let stopping = Locked(false)

    public func stop() {
        stopping.withLock { $0 = true }
    }

    /// Whether `stop()` was called.
    public var isStopRequested: Bool { stopping.withLock { $0 } }
}

/// Plays sound files through the person's audio server (PulseAudio, or PipeWire's PulseAudio service) with
/// GStreamer's `playbin`, which decodes what the installed plugins decode (Ogg Vorbis, WAV and FLAC with the base
/// and good plugins, MP3 with mpg123) and rings a sound again from its start until asked to stop. Each playback
/// has a thread of its own, which waits on the pipeline's bus a few milliseconds at a time, so a stop takes effect
/// at once; GStreamer is started at the first playback, so an instance that never plays costs nothing for it.
public struct SoundPlayer: Sendable {
    /// How often a playback looks at its stop flag, its fade and its end.
    static let poll = Duration.milliseconds(10)
    /// How long a playback may take to start before it is given up: an audio server that accepted the stream
    /// but never takes its samples.
    static let startLimit = Duration.seconds(5)

    public init() {}

    /// Starts `playback`; `finished` is called once, on the playback's thread, with how it ended.
    @discardableResult
    public func play(_ playback: SoundPlayback, finished: @escaping @Sendable (SoundEnding) -> Void) -> SoundRinging {
        let ringing = SoundRinging()
        let thread = Thread {
            if let problem = Self.startProblem {
                finished(.failed(problem))
            } else {
                finished(Self.run(playback, ringing: ringing))
            }
        }
        thread.name = "chimed.sound"
        thread.start()
        return ringing
    }

    /// Why GStreamer could not start, if it could not: started once, at the first playback, on a playback's thread.
    private static let startProblem: String? = {
        // The plugin registry is read in this process rather than by a helper GStreamer would spawn and watch.
        gst_registry_fork_set_enabled(0)
        var error: UnsafeMutablePointer<GError>?
        defer { if let error { g_error_free(error) } }
        guard gst_init_check(nil, nil, &error) == 0 else { return nil }
        return "GStreamer could not start: \(error.map { String(cString: $0.pointee.message) } ?? "no reason given")"
    }()

    private static func run(_ playback: SoundPlayback, ringing: SoundRinging) -> SoundEnding {
        guard let playbin = gst_element_factory_make("playbin", nil) else {
            return .failed("GStreamer has no playbin: install gstreamer1.0-plugins-base")
        }
        defer {
            gst_element_set_state(playbin, GST_STATE_NULL)
            gst_object_unref(playbin)
        }
        guard let uri = g_filename_to_uri(playback.file, nil, nil) else {
            return .failed("\(playback.file) is not an absolute path")
        }
        chime_gst_set_uri(playbin, uri)
        g_free(uri)
        chime_gst_disable_video(playbin)
        // PulseAudio's protocol, which PipeWire's pulse service speaks too.
        guard chime_gst_use_audio_sink(playbin, "pulsesink") != 0 else {
            return .failed("GStreamer has no pulsesink: install gstreamer1.0-pulseaudio")
        }
        let volume = min(max(playback.volume, 0), 1)
        let fades = playback.fadeIn > .zero
        chime_gst_set_volume(playbin, fades ? 0 : volume)
        guard let bus = gst_element_get_bus(playbin) else { return .failed("GStreamer gave the pipeline no bus") }
        defer { gst_object_unref(bus) }
        let change = gst_element_set_state(playbin, GST_STATE_PLAYING)
        guard change != GST_STATE_CHANGE_FAILURE else {
            return .failed(problem(on: bus) ?? "cannot play \(playback.file)")
        }
        // A ring and a fade are timed from when the sound starts, not from when it was asked for: the pipeline
        // first reads, decodes and hands the audio server its first buffer.
        let clock = ContinuousClock()
        let asked = clock.now
        var started = change == GST_STATE_CHANGE_SUCCESS ? asked : nil
        let wait = GstClockTime(Self.poll.wholeNanoseconds)
        let messages = GstMessageType(
            GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_ASYNC_DONE.rawValue)
        while true {
            if ringing.isStopRequested { return .stopped }
            let now = clock.now
            if let started {
                let elapsed = now - started
                if let ringingFor = playback.ringing, elapsed >= ringingFor { return .played }
                if fades {
                    chime_gst_set_volume(playbin, volume * min(1, elapsed / playback.fadeIn))
                }
            } else if now - asked > Self.startLimit {
                return .failed("\(playback.file) did not start playing within \(Self.startLimit)")
            }
            guard let message = gst_bus_timed_pop_filtered(bus, wait, messages) else { continue }
            defer { gst_message_unref(message) }
            switch chime_gst_message_type(message) {
            case GST_MESSAGE_ERROR:
                return .failed(errorText(of: message) ?? "cannot play \(playback.file)")
            case GST_MESSAGE_ASYNC_DONE:
                started = started ?? clock.now
            default:
                // The end of the file: once, or again from its start while it rings.
                guard playback.ringing != nil, chime_gst_rewind(playbin) != 0 else { return .played }
            }
        }
    }

    /// The error waiting on `bus`, if any.
    private static func problem(on bus: UnsafeMutablePointer<GstBus>) -> String? {
        guard let message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR) else { return nil }
        defer { gst_message_unref(message) }
        return errorText(of: message)
    }

    private static func errorText(of message: UnsafeMutablePointer<GstMessage>) -> String? {
        var error: UnsafeMutablePointer<GError>?
        gst_message_parse_error(message, &error, nil)
        defer { if let error { g_error_free(error) } }
        return error.map { String(cString: $0.pointee.message) }
    }
}
