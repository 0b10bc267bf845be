// swift-tools-version:5.7
// The attribution service's SDK for iOS, at the repository's root so that SwiftPM adds it by
// the repository's URL: `.package(url: "https://github.com/service-attribution/service-attribution.git", from: "1.0.0")`,
// product `ServiceAttribution`. Its releases are the repository's plain version tags (`1.0.0`),
// which SwiftPM and the podspec both read. The sources and tests live in sdk/ios. macOS is
// listed only so that `swift test` runs the tests on a Mac without a simulator; the SDK is for
// iOS apps.
import PackageDescription

let package = Package(
    name: "ServiceAttribution",
    platforms: [
        .iOS(.v15),
        .macOS(.v10_15),
    ],
    products: [
        .library(name: "ServiceAttribution", targets: ["ServiceAttribution"]),
    ],
    targets: [
        .target(
            name: "ServiceAttribution",
            path: "sdk/ios/Sources/ServiceAttribution",
            resources: [.copy("PrivacyInfo.xcprivacy")]
        ),
        .testTarget(
            name: "ServiceAttributionTests",
            dependencies: ["ServiceAttribution"],
            path: "sdk/ios/Tests/ServiceAttributionTests"
        ),
    ],
    swiftLanguageVersions: [.v5]
)
