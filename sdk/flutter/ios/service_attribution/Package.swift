// swift-tools-version: 5.9
// The iOS side of the Flutter plugin service_attribution for Flutter's Swift Package Manager
// support (the default from Flutter 3.44). The CocoaPods route is ../service_attribution.podspec,
// over the same sources. Flutter's own framework is the package Flutter places beside the
// plugins' (`../FlutterFramework`, from Flutter 3.41), as its plugin template declares it. The
// iOS SDK comes from the repository by its URL at the version the podspec depends on, its
// release tag, and not by a path into the checkout pub made: Flutter links (or copies) each
// plugin's package into the app's ios/Flutter/ephemeral/Packages/.packages/, and SwiftPM
// resolves the package's paths from there, where only the plugins and Flutter's framework are,
// so a path to the repository's root would lead into the app. The CocoaPods route builds the
// checkout's SDK (the README's Podfile line).
import PackageDescription

let package = Package(
    name: "service_attribution",
    platforms: [
        .iOS("15.0"),
    ],
    products: [
        .library(name: "service-attribution", targets: ["service_attribution"]),
    ],
    dependencies: [
        .package(name: "FlutterFramework", path: "../FlutterFramework"),
        .package(url: "https://github.com/service-attribution/service-attribution.git", exact: "1.0.0"),
    ],
    targets: [
        .target(
            name: "service_attribution",
            dependencies: [
                .product(name: "FlutterFramework", package: "FlutterFramework"),
                .product(name: "ServiceAttribution", package: "service-attribution"),
            ],
            resources: [
                .process("PrivacyInfo.xcprivacy"),
            ]
        ),
    ]
)
