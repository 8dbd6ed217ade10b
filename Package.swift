// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "margin",
    products: [
        .library(name: "RateCard", targets: ["RateCard"]),
        .executable(name: "margin", targets: ["margin"]),
    ],
    targets: [
        .target(name: "RateCard"),
        .executableTarget(name: "margin", dependencies: ["RateCard"]),
        .testTarget(
            name: "RateCardTests", dependencies: ["RateCard", "margin"], exclude: ["Fixtures"]),
    ]
)
