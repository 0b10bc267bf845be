# The attribution service's SDK for iOS (sources in sdk/ios). Paths are relative to the
# repository's root, which is what CocoaPods checks out at the tag: `pod 'ServiceAttribution',
# :git => 'https://github.com/service-attribution/service-attribution.git', :tag => '1.0.0'`.
# `pod lib lint ServiceAttribution.podspec` checks it where CocoaPods is.
Pod::Spec.new do |s|
  s.name             = 'ServiceAttribution'
  s.version          = '1.0.0'
  s.summary          = "The attribution service's SDK for iOS: installs, events, attribution and deep links."
  s.description      = <<-DESC
    Tracks the install and in-app events (kept on the device while offline), reads the
    install's attribution and deferred deep link, delivers direct and deferred deep links and
    errors to the app's listeners, honours stop, anonymous mode and consent (with the IAB TCF
    values the app's consent platform stores), reports Apple Ads attribution through
    AdServices, and sets SKAdNetwork and AdAttributionKit conversion values from the app's
    schema. Swift, no third-party dependency.
  DESC
  s.homepage         = 'https://github.com/service-attribution/service-attribution/tree/main/sdk/ios'
  s.license          = { :type => 'Apache-2.0', :file => 'LICENSE' }
  s.author           = { 'Service Attribution' => 'sdk@service-attribution.invalid' }
  # The same plain version tags SwiftPM reads (SwiftPM takes no prefixed tag as a version).
  s.source           = { :git => 'https://github.com/service-attribution/service-attribution.git', :tag => s.version.to_s }

  s.ios.deployment_target = '15.0'
  # Swift 5 language mode: CocoaPods picks the highest of these its Xcode supports.
  s.swift_versions   = ['5.7', '5.8', '5.9', '5.10']

  s.source_files     = 'sdk/ios/Sources/ServiceAttribution/**/*.swift'
  s.resource_bundles = { 'ServiceAttribution_Privacy' => ['sdk/ios/Sources/ServiceAttribution/PrivacyInfo.xcprivacy'] }

  s.frameworks       = 'Foundation', 'CryptoKit', 'AdSupport', 'StoreKit', 'UIKit'
  # Present on every iOS from 15 and used without availability checks; weakly linked like
  # AdAttributionKit (below), which costs nothing where a framework exists.
  s.weak_frameworks  = 'AppTrackingTransparency', 'AdServices'
  # AdAttributionKit (iOS 17.4) is not named here: the SDKs of Xcode before 15.3 (Swift 5.7 to
  # 5.9, which swift_versions takes) do not have it, and `-weak_framework AdAttributionKit`
  # would fail their link (framework not found). The sources import it only where the SDK has
  # it (`canImport`), with `@_weakLinked import`, so the compiler links it itself there, weakly,
  # as under SwiftPM.
end
