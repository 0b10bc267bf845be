#
# The iOS side of the Flutter plugin service_attribution, over the ServiceAttribution pod
# (sdk/ios). `pod lib lint service_attribution.podspec` checks it where CocoaPods is.
#
Pod::Spec.new do |s|
  s.name             = 'service_attribution'
  s.version          = '2.10.0'
  s.summary          = "Flutter plugin of the attribution service: the iOS side."
  s.description      = <<-DESC
    Tracks installs and in-app events, reads the install's attribution and deferred deep link,
    and parses the service's links, through the ServiceAttribution iOS SDK.
  DESC
  s.homepage         = 'https://github.com/service-attribution/service-attribution/tree/main/sdk/flutter'
  s.license          = { :type => 'Apache-2.0', :file => '../LICENSE' }
  s.author           = { 'Service Attribution' => 'sdk@service-attribution.invalid' }
  s.source           = { :path => '.' }
  # The sources and the privacy manifest are where the Swift package (service_attribution/) has them.
  s.source_files     = 'service_attribution/Sources/service_attribution/**/*.swift'
  s.resource_bundles = { 'service_attribution_privacy' => ['service_attribution/Sources/service_attribution/PrivacyInfo.xcprivacy'] }

  s.dependency 'Flutter'
  s.dependency 'ServiceAttribution', '1.0.0'
  s.platform         = :ios, '15.0'
  s.swift_version    = '5.7'

  # Flutter's plugin template: a module, and no 32-bit simulator slice.
  s.pod_target_xcconfig = { 'DEFINES_MODULE' => 'YES', 'EXCLUDED_ARCHS[sdk=iphonesimulator*]' => 'i386' }
end
