import CChimeShims
import ChimeCore
import Foundation

/// How chimed asks glibc's malloc to hold memory: few arenas, and which blocks are mapped on their own, differently
/// for the first load than for the rebuilds after it.
enum MallocTuning {
    /// Before anything is loaded.
    ///
    /// One malloc arena for each core and one for the main thread, not glibc's eight per core: with a rebuild a
    /// second, each thread a load runs on otherwise keeps the freed memory of past loads in an arena of its own, and
    /// the RSS at rest with 100,000 notifications grows to twice the schedule over minutes (docs/reliability.md, the
    /// soak). One arena fewer, and two of a load's threads on all cores share one, each waiting on the other's every
    /// allocation (bench/scale.md).
    ///
    /// Blocks of a MiB and more are mapped on their own, given back when freed, so that no heap keeps a load's large
    /// arrays at rest. The first load's generator output, in chunks of a quarter of that, comes from the heaps: a
    /// chunk freed as its lines are loaded leaves its pages to the notifications made next, where a chunk mapped on
    /// its own gave them back and the notifications took fresh ones, which the kernel zeroes (a start of a million:
    /// 645 MiB of pages faulted in instead of 520, and a tenth slower; bench/scale.md).
    static func forFirstLoad() {
        _ = chime_limit_malloc_arenas(Int32(ProcessInfo.processInfo.activeProcessorCount + 1))
        _ = chime_map_allocations_from(Int32(4 * LineChunks.chunkSize))
    }

    /// Once the first schedule is installed: a rebuild's chunks are mapped one by one, so that each is given back
    /// as soon as its lines are read. Beside the installed schedule, chunks freed into the heaps raised the peak of
    /// a rebuild whose output changed from 1.4 to 1.75 times the schedule's memory.
    static func forRebuilds() {
        _ = chime_map_allocations_from(Int32(LineChunks.chunkSize))
    }
}
