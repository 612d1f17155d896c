import Dispatch
import Foundation

extension Array {
    /// `map` spread over the available cores, in order. For large batches of independent work (reading and
    /// parsing thousands of notification files); small arrays are mapped in place.
    public func concurrentMap<T>(_ transform: (Element) -> T) -> [T] {
        guard count >= 64 else { return map(transform) }
        // Sixteen chunks a core: the threads finish within one small chunk of each other, rather than one going on
        // alone with a large chunk of slow files at the end.
        let chunkCount = Swift.min(count, 16 * Swift.max(1, ProcessInfo.processInfo.activeProcessorCount))
        let chunkSize = (count + chunkCount - 1) / chunkCount
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            // Each chunk writes its own disjoint range of the buffer.
            nonisolated(unsafe) let output = buffer
            withoutActuallyEscaping(transform) { transform in
                nonisolated(unsafe) let transform = transform
                self.withUnsafeBufferPointer { input in
                    nonisolated(unsafe) let input = input
                    ParallelWork.perform(iterations: chunkCount) { chunk in
                        let start = chunk * chunkSize
                        let end = Swift.min(start + chunkSize, input.count)
                        guard start < end else { return }
                        for index in start..<end {
                            (output.baseAddress! + index).initialize(to: transform(input[index]))
                        }
                    }
                }
            }
            initialized = count
        }
    }
}
