import Foundation

/// What a tapped Universal Link says, parsed from its URL alone, with no network call.
public struct ServiceLinkResult: Equatable, Sendable {
    /// The link's single path segment (`https://<link host>/<deeplinkId>`), percent-decoded;
    /// nil when the path has none or more than one.
    public let deeplinkId: String?

    /// The URL's query parameters, percent-decoded (`+` as a space); the last value wins for a
    /// repeated name, a name without a value maps to "". Custom parameters of the link, such as
    /// `deep_link_path`, are included.
    public let queryParams: [String: String]

    /// The tapped URL.
    public let url: URL

    public init(deeplinkId: String?, queryParams: [String: String], url: URL) {
        self.deeplinkId = deeplinkId
        self.queryParams = queryParams
        self.url = url
    }
}
