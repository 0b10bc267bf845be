Pod::Spec.new do |s|
  s.name             = 'ServiceAttribution'
  s.version          = '1.0.0'
  s.summary          = "The attribution service's SDK for iOS: installs, events, attribution and deferred deep links."
  s.description      = <<-DESC
    Tracks the install and in-app events (kept on the device while offline), reads the
    install's attribution and deferred deep link, parses the service's Universal Links, and
    reports Apple Ads attribution through AdServices. Swift, no third-party dependency.
  DESC
  s.homepage         = 'https://github.com/service-attribution/service-attribution/tree/main/sdk/ios'
  s.license          = { :type => 'Apache-2.0' }
  s.author           = { 'Service Attribution' => 'sdk@service-attribution.invalid' }
  s.source           = { :git => 'https://github.com/service-attribution/service-attribution.git', :tag => "ios-v#{s.version}" }

  s.ios.deployment_target = '13.0'
  s.swift_versions   = ['5.7', '5.8', '5.9', '5.10', '6.0']

  s.source_files     = 'Sources/ServiceAttribution/**/*.swift'
  s.resource_bundles = { 'ServiceAttribution_Privacy' => ['Sources/ServiceAttribution/PrivacyInfo.xcprivacy'] }

  s.frameworks       = 'Foundation', 'CryptoKit', 'AdSupport', 'UIKit'
  # Newer than iOS 13: linked weakly, used behind availability checks.
  s.weak_frameworks  = 'AppTrackingTransparency', 'AdServices'
end
