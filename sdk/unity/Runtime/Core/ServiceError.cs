namespace Service.Unity
{
    public enum ServiceErrorKind
    {
        /// <summary>
        /// The service refused the install (401, 403, 404, or its bare form), or a delivery route
        /// (401, 403, 404), or rejected the SDK key on its remote configuration (401, and the SDK
        /// is off for the run): <see cref="ServiceError.Code"/> says how. With no code: Configure
        /// found no service address (ServiceSDK.BaseUrl) or one that is no absolute http or https
        /// URL, or runs on a platform the service takes no install from, and the SDK is off.
        /// </summary>
        Configuration,

        /// <summary>
        /// Events were dropped: <see cref="ServiceError.Reason"/> says why, <see cref="ServiceError.Count"/> how many.
        /// With no reason: events lost because the queue kept on the device could not be read back (a damaged value).
        /// </summary>
        EventsDropped,

        /// <summary>
        /// iOS: Apple refused a conversion value update the app's conversion value schema made
        /// (SKAdNetwork or AdAttributionKit answered an error); <see cref="ServiceError.Message"/> says which and why.
        /// </summary>
        ConversionValue,
    }

    /// <summary>The only reasons the SDK drops an event it queued (sdk/conformance/delivery.json).</summary>
    public enum ServiceDropReason
    {
        /// <summary>`queue_full`: the queue held 1000 events; the oldest went.</summary>
        QueueFull,

        /// <summary>`refused`: the service refused this event for good.</summary>
        Refused,

        /// <summary>`expired`: older than 30 days by the device's clock, which the service refuses.</summary>
        Expired,

        /// <summary>`stopped`: the app called Stop.</summary>
        Stopped,

        /// <summary>`disabled`: remote configuration switched the SDK off, or the key was rejected.</summary>
        Disabled,

        /// <summary>`deleted`: the install's data was deleted (DeleteUserData, or through the service's API).</summary>
        Deleted,
    }

    /// <summary>What <see cref="ServiceSDK.ErrorOccurred"/> receives; read-only.</summary>
    public sealed class ServiceError
    {
        internal ServiceError(ServiceErrorKind kind, ServiceDropReason? reason, int? code, long count, string message)
        {
            Kind = kind;
            Reason = reason;
            Code = code;
            Count = count;
            Message = message;
        }

        public ServiceErrorKind Kind { get; }

        /// <summary>Why the events were dropped; null for a configuration error, and for events lost with a queue kept on the device that could not be read back.</summary>
        public ServiceDropReason? Reason { get; }

        /// <summary>The HTTP status of a configuration error (null for a Configure without a service address); null otherwise.</summary>
        public int? Code { get; }

        /// <summary>How many events were dropped (1 for the other kinds).</summary>
        public long Count { get; }

        public string Message { get; }

        /// <summary>The kind's wire name: `configuration`, `events_dropped` or `conversion_value`.</summary>
        public string KindName
        {
            get
            {
                switch (Kind)
                {
                    case ServiceErrorKind.Configuration: return "configuration";
                    case ServiceErrorKind.EventsDropped: return "events_dropped";
                    default: return "conversion_value";
                }
            }
        }

        /// <summary>The reason's wire name (`queue_full`, `refused`, ...), or null.</summary>
        public string ReasonName
        {
            get { return Reason.HasValue ? WireName(Reason.Value) : null; }
        }

        /// <summary>A drop reason's name in sdk/conformance/delivery.json and in the log.</summary>
        public static string WireName(ServiceDropReason reason)
        {
            switch (reason)
            {
                case ServiceDropReason.QueueFull: return "queue_full";
                case ServiceDropReason.Refused: return "refused";
                case ServiceDropReason.Expired: return "expired";
                case ServiceDropReason.Stopped: return "stopped";
                case ServiceDropReason.Disabled: return "disabled";
                default: return "deleted";
            }
        }

        public override string ToString()
        {
            return "ServiceError(" + KindName + (Reason.HasValue ? ", " + ReasonName : "") + (Code.HasValue ? ", " + Code : "")
                + ", count " + Count + ": " + Message + ")";
        }
    }
}
