// The library keeps its name although Dart 3 takes `library;`: tree-sitter's Dart grammar,
// which tool/check.mjs parses every file with, does not.

/// The attribution service's Flutter plugin: `ServicePlugin` and what its calls take and give.
library service_attribution; // ignore: unnecessary_library_name

export 'src/event_type.dart' show EventType, EventTypeExtension;
export 'src/link_result.dart' show ServiceLinkResult;
export 'src/listeners.dart'
    show
        ServiceDeepLink,
        ServiceDeepLinkKind,
        ServiceDeepLinkKindWire,
        ServiceDropReason,
        ServiceDropReasonWire,
        ServiceError,
        ServiceErrorKind,
        ServiceErrorKindWire;
export 'src/service_plugin.dart' show ServicePlugin;
