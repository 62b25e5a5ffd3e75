// swift-tools-version:6.0
import Foundation
import PackageDescription

// Debug builds compile the modules where the test suite spends its time optimised too: the
// simulation, its samplers, fitting, storage and rendering, and the randomness tests' statistics.
// Their statistical tests and the many runs of the built tool then take a fraction of the time
// they take at -Onone, for a first build that is slower. `@testable import` keeps working (SwiftPM
// still passes -enable-testing), debug information is still generated, and preconditions and
// overflow checks stay on (no module relies on `assert`). The engines are left out so that the
// `ReminderSimEngines` product carries no unsafe flags: with this tools version they would keep it
// from being used as a versioned dependency.
// `REMINDERSIM_UNOPTIMISED_DEBUG=1 swift build` compiles everything at -Onone, for a debugger that
// shows every local variable.
let optimisedInDebug: [SwiftSetting] =
    ProcessInfo.processInfo.environment["REMINDERSIM_UNOPTIMISED_DEBUG"] == "1"
    ? [] : [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "ReminderSim",
    products: [
        // The two engines, as an app would embed them.
        .library(name: "ReminderSimEngines", targets: ["ReminderEngine", "CronEngine"]),
        .executable(name: "remindersim", targets: ["remindersim"]),
    ],
    targets: [
        .systemLibrary(
            name: "ReminderSimSQLite",
            path: "Sources/ReminderSimSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "ReminderSimZlib",
            path: "Sources/ReminderSimZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(name: "FilePaths", exclude: ["README.md"]),
        .target(name: "ReminderEngine", exclude: ["README.md"]),
        .target(name: "CronEngine", exclude: ["README.md"]),
        .target(name: "Randomness", exclude: ["README.md"], swiftSettings: optimisedInDebug),
        .target(name: "GapFamilies", dependencies: ["Randomness"], exclude: ["README.md"], swiftSettings: optimisedInDebug),
        .target(
            name: "Simulation", dependencies: ["ReminderEngine", "CronEngine", "Randomness", "GapFamilies", "RecordedData"],
            exclude: ["README.md"], swiftSettings: optimisedInDebug),
        .target(name: "ScenarioData", dependencies: ["Simulation", "RecordedData", "FilePaths"], exclude: ["README.md"]),
        .target(name: "Console", dependencies: ["FilePaths"], exclude: ["README.md"]),
        .target(
            name: "Storage", dependencies: ["ReminderSimSQLite", "Simulation", "ReminderEngine", "FilePaths"], exclude: ["README.md"],
            swiftSettings: optimisedInDebug),
        .target(name: "Rendering", exclude: ["README.md"], swiftSettings: optimisedInDebug),
        .target(
            name: "Fitting", dependencies: ["Randomness", "GapFamilies", "RecordedData"], exclude: ["README.md"],
            swiftSettings: optimisedInDebug),
        .target(
            name: "RecordedData", dependencies: ["ReminderSimZlib"], exclude: ["README.md"],
            swiftSettings: optimisedInDebug),
        .target(
            name: "Calibration", dependencies: ["Simulation", "Fitting", "Randomness", "RecordedData"],
            exclude: ["README.md"]),
        .target(
            name: "Reporting",
            dependencies: [
                "Rendering", "Storage", "Simulation", "ReminderEngine", "Fitting", "GapFamilies", "RecordedData", "FilePaths",
            ],
            exclude: ["README.md"]),
        .target(
            name: "ReminderSimCLI",
            dependencies: [
                "Console", "Simulation", "Storage", "Reporting", "Rendering", "ReminderEngine", "Fitting", "RecordedData",
                "Calibration", "ScenarioData", "FilePaths",
            ],
            exclude: ["README.md"]
        ),
        .executableTarget(name: "remindersim", dependencies: ["ReminderSimCLI"], exclude: ["README.md"]),

        // Helpers shared by the test targets: a seeded generator, a process launcher, temporary folders, an
        // SVG checker. They import no module of the package, so the engines' tests build without the simulation.
        .target(name: "ReminderSimTestSupport", path: "Tests/TestSupport", exclude: ["README.md"]),
        // Helpers for tests of code that stores or shows results: consistent hand-made tallies.
        .target(
            name: "SimulationTestSupport", dependencies: ["Simulation", "RecordedData"], path: "Tests/SimulationTestSupport",
            exclude: ["README.md"]),
        .testTarget(name: "ReminderEngineTests", dependencies: ["ReminderEngine", "ReminderSimTestSupport"]),
        .testTarget(name: "CronEngineTests", dependencies: ["CronEngine"]),
        .testTarget(name: "RandomnessTests", dependencies: ["Randomness"], swiftSettings: optimisedInDebug),
        .testTarget(name: "GapFamiliesTests", dependencies: ["GapFamilies", "Randomness"]),
        .testTarget(name: "ConsoleTests", dependencies: ["Console"]),
        .testTarget(name: "FilePathsTests", dependencies: ["FilePaths"]),
        // Reads the package's own files: every import declared by its target and allowed by its module's README.
        .testTarget(name: "PackageTests", swiftSettings: optimisedInDebug),
        .testTarget(
            name: "SimulationTests",
            dependencies: ["Simulation", "ScenarioData", "Randomness", "GapFamilies", "ReminderEngine", "CronEngine", "ReminderSimTestSupport",
                           "SimulationTestSupport"]),
        .testTarget(name: "RenderingTests", dependencies: ["Rendering", "ReminderSimTestSupport"]),
        .testTarget(name: "FittingTests", dependencies: ["Fitting", "GapFamilies", "Randomness", "RecordedData"]),
        .testTarget(name: "RecordedDataTests", dependencies: ["RecordedData", "ReminderSimZlib"]),
        .testTarget(name: "CalibrationTests", dependencies: ["Calibration", "Simulation", "Randomness"]),
        .testTarget(
            name: "StorageTests",
            dependencies: ["Storage", "Simulation", "ReminderEngine", "ReminderSimTestSupport", "SimulationTestSupport"]),
        .testTarget(
            name: "ReportingTests",
            dependencies: ["Reporting", "Storage", "Simulation", "Rendering", "ReminderSimTestSupport", "SimulationTestSupport"]),
        .testTarget(
            name: "CLITests",
            dependencies: [
                "ReminderSimCLI", "Console", "Rendering", "Storage", "Simulation", "ReminderSimTestSupport", "ReminderSimZlib",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
