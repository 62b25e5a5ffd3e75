// swift-tools-version:6.0
import PackageDescription

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
        .target(name: "ReminderEngine"),
        .target(name: "CronEngine"),
        .target(name: "Randomness"),
        .target(name: "Simulation", dependencies: ["ReminderEngine", "CronEngine", "Randomness", "RecordedData"]),
        .target(name: "Console"),
        .target(name: "Storage", dependencies: ["ReminderSimSQLite", "Simulation", "ReminderEngine"]),
        .target(name: "Rendering"),
        .target(name: "Fitting", dependencies: ["Randomness", "RecordedData"]),
        .target(name: "RecordedData", dependencies: ["ReminderSimZlib"]),
        .target(name: "Calibration", dependencies: ["Simulation", "Fitting", "Randomness", "RecordedData"]),
        .target(name: "Reporting", dependencies: ["Rendering", "Storage", "Simulation", "ReminderEngine", "Fitting", "RecordedData"]),
        .target(
            name: "ReminderSimCLI",
            dependencies: [
                "Console", "Simulation", "Storage", "Reporting", "ReminderEngine", "CronEngine", "Fitting", "RecordedData",
                "Calibration",
            ]
        ),
        .executableTarget(name: "remindersim", dependencies: ["ReminderSimCLI"]),

        .testTarget(name: "ReminderEngineTests", dependencies: ["ReminderEngine"]),
        .testTarget(name: "CronEngineTests", dependencies: ["CronEngine"]),
        .testTarget(name: "RandomnessTests", dependencies: ["Randomness"]),
        .testTarget(name: "ConsoleTests", dependencies: ["Console"]),
        .testTarget(name: "SimulationTests", dependencies: ["Simulation", "Randomness", "ReminderEngine", "CronEngine"]),
        .testTarget(name: "RenderingTests", dependencies: ["Rendering"]),
        .testTarget(name: "FittingTests", dependencies: ["Fitting", "Randomness", "RecordedData"]),
        .testTarget(name: "RecordedDataTests", dependencies: ["RecordedData", "ReminderSimZlib"]),
        .testTarget(name: "CalibrationTests", dependencies: ["Calibration", "Simulation"]),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "Simulation", "ReminderEngine"]),
        .testTarget(name: "CLITests", dependencies: ["ReminderSimCLI", "Rendering", "Storage", "Simulation"]),
    ],
    swiftLanguageModes: [.v6]
)
