import ChimeCore
import Foundation

/// A PulseAudio of the test's own (`pulseaudio -n` with nothing but its socket and a null sink), whose sink's
/// monitor is recorded with `parecord`: what anything plays to it is heard in the recording. The rest of the
/// machine is not touched: the server lives in a temporary runtime directory, and clients find it through
/// `PULSE_SERVER` (`environment`).
public final class PrivateAudioServer: Sendable {
    public let directory: TemporaryDirectory
    /// `PULSE_SERVER` for a client of this server.
    public let address: String
    private let server: RunningProcess

    /// Why no audio server can be started here, if none can (Debian: pulseaudio, pulseaudio-utils).
    public static let unmetRequirement: String? = {
        let tools = [("/usr/bin/pulseaudio", "pulseaudio"), ("/usr/bin/parecord", "pulseaudio-utils")]
        let missing = tools.filter { !FileManager.default.isExecutableFile(atPath: $0.0) }
        return missing.isEmpty ? nil : "needs " + Set(missing.map(\.1)).sorted().joined(separator: ", ")
    }()

    public init() async throws {
        directory = try TemporaryDirectory(prefix: "chime-audio")
        let script = try directory.write(
            "server.pa",
            "load-module module-native-protocol-unix auth-anonymous=1 socket=\(directory.path)/native\n"
                + "load-module module-null-sink sink_name=recorded\nset-default-sink recorded\n")
        address = "unix:\(directory.path)/native"
        // Its own runtime and home: nothing of a PulseAudio that may run for the person is read or changed.
        // PulseAudio closes every descriptor it inherits, and Foundation's `Process` takes a child's closed
        // descriptor for its end: its one reaping thread would wait on the server for good, and no child started
        // after it would be reaped. A shell keeps that descriptor for it and passes SIGTERM on.
        let arguments = [
            "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "--system=no", "-F", script,
        ]
        server = try RunningProcess(
            "/bin/sh",
            ["-c", "/usr/bin/pulseaudio \"$@\" & child=$!; trap 'kill $child' TERM; wait $child; wait $child", "sh"]
                + arguments,
            environment: ["XDG_RUNTIME_DIR": directory.path, "HOME": directory.path, "PULSE_SERVER": address])
        // Ready once its socket is there (pactl, asked before, may start a server of its own).
        let socket = directory.path + "/native"
        let ready = await eventually(timeout: 15) { FileManager.default.fileExists(atPath: socket) }
        guard ready else {
            server.signal(SIGTERM)
            throw Failure("PulseAudio did not start: \(server.standardError)")
        }
    }

    /// What a client of this server needs in its environment.
    public var environment: [String: String] { ["PULSE_SERVER": address] }

    /// Records the sink's monitor while `body` runs, then returns what was heard. `body` starts once the
    /// recording has its first samples, so the recording's timeline follows the clock from then on.
    public func recording(_ body: () async throws -> Void) async throws -> Recording {
        let file = directory.path + "/recorded-\(UUID().uuidString).wav"
        // At the server's own rate and channels: a monitor recorded at 8 kHz mono comes out silent. At a short
        // latency: at parecord's default the null sink holds two seconds of what is played, and a sound stopped
        // before it has been heard in full is cut short by that much in the recording.
        let recorder = try RunningProcess(
            "/usr/bin/parecord", ["--latency-msec=20", "--device=recorded.monitor", "--file-format=wav", file],
            environment: environment)
        // Its first samples come a few hundred milliseconds to two seconds after it starts.
        let started = await eventually(timeout: 10) {
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
            return size > 8_192
        }
        guard started else {
            recorder.signal(SIGKILL)
            throw Failure("parecord recorded nothing: \(recorder.standardError)")
        }
        try await body()
        recorder.signal(SIGINT)
        recorder.wait(timeout: 5)
        return try Recording(wav: file)
    }

    public func stop() {
        server.signal(SIGTERM)
        server.wait(timeout: 5)
        directory.remove()
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// What a recording heard: its loudness over time. The WAV parecord writes (16-bit samples, any rate and number
/// of channels) is read here, its channels mixed down.
public struct Recording: Sendable {
    /// Samples per second.
    public let rate: Int
    /// One 16-bit sample per frame, the channels averaged.
    public let samples: [Int16]

    init(wav: String) throws {
        let audio = try Wave(Data(contentsOf: URL(fileURLWithPath: wav)))
        rate = audio.rate
        samples = audio.frames
    }

    public var duration: Duration { .milliseconds(samples.count * 1000 / max(rate, 1)) }

    /// The root mean square of the samples in each `window`, from 0 (silence) to 1 (full scale).
    public func loudness(window: Duration = .milliseconds(50)) -> [Double] {
        let size = max(1, Int(window.wholeMilliseconds) * rate / 1000)
        return stride(from: 0, to: samples.count, by: size).map { start in
            let part = samples[start..<min(start + size, samples.count)]
            let sum = part.reduce(0.0) { $0 + Double($1) * Double($1) }
            return (sum / Double(part.count)).squareRoot() / Double(Int16.max)
        }
    }

    /// The stretches of sound, as times from the recording's start: windows louder than `threshold`, silences
    /// shorter than `gap` bridged (a ringing sound's return to its start).
    public func sounds(
        threshold: Double = 0.01, window: Duration = .milliseconds(20), gap: Duration = .milliseconds(300)
    ) -> [Range<Duration>] {
        var stretches: [Range<Duration>] = []
        for (index, level) in loudness(window: window).enumerated() where level > threshold {
            let start = window * index
            if let last = stretches.last, start - last.upperBound < gap {
                stretches[stretches.count - 1] = last.lowerBound..<start + window
            } else {
                stretches.append(start..<start + window)
            }
        }
        return stretches
    }

    /// How long something was audible in all (windows louder than `threshold`).
    public func audible(threshold: Double = 0.01, window: Duration = .milliseconds(50)) -> Duration {
        window * loudness(window: window).filter { $0 > threshold }.count
    }
}

/// A 16-bit PCM WAV file: what parecord writes, and what the tests play.
public struct Wave: Sendable {
    public let rate: Int
    /// The channels mixed down to one.
    public let frames: [Int16]

    /// A sine tone of `seconds` at `frequency` and `amplitude` (0…1 of full scale), two channels at 44.1 kHz.
    public static func tone(seconds: Double, frequency: Double = 440, amplitude: Double = 0.5) -> Data {
        let rate = 44_100
        let count = Int(seconds * Double(rate))
        var data = header(rate: rate, channels: 2, bytes: count * 4)
        for index in 0..<count {
            let value = Int16(amplitude * Double(Int16.max) * sin(2 * .pi * frequency * Double(index) / Double(rate)))
            for _ in 0..<2 { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        }
        return data
    }

    private static func header(rate: Int, channels: Int, bytes: Int) -> Data {
        var data = Data("RIFF".utf8)
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        append(UInt32(36 + bytes))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16))
        append(UInt16(1))
        append(UInt16(channels))
        append(UInt32(rate))
        append(UInt32(rate * channels * 2))
        append(UInt16(channels * 2))
        append(UInt16(16))
        data.append(contentsOf: Array("data".utf8))
        append(UInt32(bytes))
        return data
    }

    /// Reads `data`'s format and samples; throws for anything but 16-bit PCM.
    public init(_ data: Data) throws {
        let bytes = [UInt8](data)
        func word(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func long(_ at: Int) -> Int { word(at) | word(at + 2) << 16 }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8)
        else {
            throw PrivateAudioServer.Failure("not a WAV file")
        }
        var channels = 0
        var rate = 0
        var position = 12
        var samples: [Int16] = []
        while position + 8 <= bytes.count {
            let name = String(decoding: bytes[position..<position + 4], as: UTF8.self)
            // parecord, stopped, may leave the data chunk's size unset: it runs to the end of the file.
            var size = long(position + 4)
            if size == 0 || position + 8 + size > bytes.count { size = bytes.count - position - 8 }
            let body = position + 8
            if name == "fmt " && size >= 16 {
                guard word(body) == 1, word(body + 14) == 16 else { throw PrivateAudioServer.Failure("not 16-bit PCM") }
                channels = word(body + 2)
                rate = long(body + 4)
            } else if name == "data", channels > 0 {
                let frameBytes = channels * 2
                samples.reserveCapacity(size / frameBytes)
                var frame = body
                while frame + frameBytes <= body + size {
                    var sum = 0
                    for channel in 0..<channels { sum += Int(Int16(bitPattern: UInt16(word(frame + channel * 2)))) }
                    samples.append(Int16(sum / channels))
                    frame += frameBytes
                }
            }
            position = body + size + (size & 1)
        }
        guard rate > 0 else { throw PrivateAudioServer.Failure("a WAV file without its format") }
        self.rate = rate
        frames = samples
    }
}
