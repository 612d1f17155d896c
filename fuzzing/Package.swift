// swift-tools-version:6.0
import PackageDescription

// The fuzz targets (docs/reliability.md), a package of their own: they and the chime modules they test are built with
// libFuzzer's coverage and AddressSanitizer (`make fuzz-build`) into fuzzing/.build, which chime's own build never
// sees, and each has libFuzzer's driver for its main.

// SwiftPM knows a package on disk by its directory's name, whatever the clone of chime is called (but not
// `fuzzing`, which is this package's).
let chime = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "chime")

func fuzzTarget(_ name: String, testing product: String) -> Target {
    .executableTarget(
        name: name,
        dependencies: [
            "FuzzSupport", .product(name: product, package: chime), .product(name: "ChimeTestSupport", package: chime),
            // The zone database the targets read times with (ZoneDatabase.system) is the system's, on disk.
            .product(name: "ChimePlatform", package: chime),
        ])
}

let package = Package(
    name: "chime-fuzz",
    dependencies: [.package(path: "..")],
    targets: [
        // libFuzzer's LLVMFuzzerRunDriver, declared for Swift.
        .systemLibrary(name: "CLibFuzzer"),
        .target(
            name: "FuzzSupport",
            dependencies: [
                "CLibFuzzer", .product(name: "ChimeCore", package: chime),
                .product(name: "ChimePlatform", package: chime), .product(name: "ChimeTestSupport", package: chime),
            ]),
        fuzzTarget("fuzz-unit-file", testing: "ChimeCore"),
        fuzzTarget("fuzz-calendar", testing: "ChimeCore"),
        fuzzTarget("fuzz-timestamp", testing: "ChimeCore"),
        fuzzTarget("fuzz-timespan", testing: "ChimeCore"),
        fuzzTarget("fuzz-generator", testing: "ChimeCore"),
        fuzzTarget("fuzz-state", testing: "ChimeDaemon"),
    ]
)
