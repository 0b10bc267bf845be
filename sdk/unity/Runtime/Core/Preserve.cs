using System;

namespace Service.Unity
{
    /// <summary>
    /// Keeps what it marks through Unity's managed code stripping (always on with IL2CPP), which
    /// honours an attribute of this exact name from any namespace or assembly, as Unity's own
    /// PreserveAttribute documentation says: the core is built without UnityEngine. It marks what
    /// only Newtonsoft reaches, by reflection (the queued items it writes and reads back).
    /// </summary>
    [AttributeUsage(
        AttributeTargets.Class | AttributeTargets.Struct | AttributeTargets.Constructor | AttributeTargets.Method
        | AttributeTargets.Property | AttributeTargets.Field, Inherited = false)]
    internal sealed class PreserveAttribute : Attribute
    {
    }
}
