/// The attribution service's Flutter plugin: `ServicePlugin` and what its calls take and give.
library service_attribution;

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
