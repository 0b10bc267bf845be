// swift-tools-version:5.7
// The attribution service's SDK for iOS. macOS is listed only so that `swift test` runs the
// tests on a Mac without a simulator; the SDK is for iOS apps.
import PackageDescription

let package = Package(
    name: "ServiceAttribution",
    platforms: [
        .iOS(.v13),
        .macOS(.v10_15),
    ],
    products: [
        .library(name: "ServiceAttribution", targets: ["ServiceAttribution"]),
    ],
    targets: [
        .target(
            name: "ServiceAttribution",
            path: "Sources/ServiceAttribution",
            resources: [.copy("PrivacyInfo.xcprivacy")]
        ),
        .testTarget(
            name: "ServiceAttributionTests",
            dependencies: ["ServiceAttribution"],
            path: "Tests/ServiceAttributionTests"
        ),
    ],
    swiftLanguageVersions: [.v5]
)
