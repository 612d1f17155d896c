import ChimeDaemon
import FuzzSupport

let store = FileHistoryStore(directory: "/var/lib/chime")

// chimed's state directory as it reads it back at start: the input is state.json, then (after a 0x1E byte)
// occurrences.log, or, with three parts, a journal set aside by a compaction (occurrences.log.1) and then
// occurrences.log; an empty state.json stands for none. Whatever the bytes, the store starts, with what it could
// read.
Fuzzer.run { input in
    let files = Fuzzer.parts(input, limit: 3)
    _ = store.read(
        snapshot: files[0].isEmpty ? nil : files[0],
        setAside: files.count > 2 ? [(path: "/var/lib/chime/occurrences.log.1", bytes: files[1])] : [],
        journal: files.count > 1 ? files.last : nil)
}
