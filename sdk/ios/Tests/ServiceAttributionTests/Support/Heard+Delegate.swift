import Foundation
@testable import ServiceAttribution

/// Heard as the app's delegate. The conformance is declared here, in an extension of a file of
/// its own, so that Heard is not inferred `@MainActor` from the protocol (a type is, when it
/// conforms in its own declaration): its methods, declared with the type, stay nonisolated,
/// and a nonisolated method satisfies a main-actor requirement. The SDK calls them on its main
/// thread (the tests' stand-in queue); the tests read Heard from their own, under its lock.
extension Heard: ServiceAttributionDelegate {}
