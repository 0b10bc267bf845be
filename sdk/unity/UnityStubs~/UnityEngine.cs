// Compile-only declarations of the few UnityEngine members the Unity layer uses, so that it
// compiles on a machine without Unity. Never shipped: a Unity build brings the real ones.
using System;

namespace UnityEngine
{
    public class Object
    {
        public static void DontDestroyOnLoad(Object target) { }

        public static void Destroy(Object target) { }
    }

    public class Component : Object
    {
        public GameObject gameObject { get { throw new NotSupportedException("compile-only declaration"); } }
    }

    /// <summary>The Inspector's attributes a sample's fields carry.</summary>
    [AttributeUsage(AttributeTargets.Field)]
    public sealed class SerializeField : Attribute { }

    [AttributeUsage(AttributeTargets.Field)]
    public sealed class TooltipAttribute : Attribute
    {
        public TooltipAttribute(string tooltip) { }
    }

    [AttributeUsage(AttributeTargets.Field)]
    public sealed class RangeAttribute : Attribute
    {
        public RangeAttribute(float min, float max) { }
    }

    public class Behaviour : Component { }

    public class MonoBehaviour : Behaviour { }

    public sealed class GameObject : Object
    {
        public GameObject(string name) { }

        public T AddComponent<T>() where T : Component
        {
            throw new NotSupportedException("compile-only declaration");
        }
    }

    public enum RuntimeInitializeLoadType
    {
        AfterSceneLoad,
        BeforeSceneLoad,
        SubsystemRegistration,
    }

    [AttributeUsage(AttributeTargets.Method)]
    public sealed class RuntimeInitializeOnLoadMethodAttribute : Attribute
    {
        public RuntimeInitializeOnLoadMethodAttribute(RuntimeInitializeLoadType loadType) { }
    }

    public enum RuntimePlatform
    {
        Android,
        IPhonePlayer,
        WebGLPlayer,
    }

    public static class Application
    {
        public static RuntimePlatform platform { get { throw new NotSupportedException(); } }
        public static string version { get { throw new NotSupportedException(); } }
        public static string absoluteURL { get { throw new NotSupportedException(); } }
        public static event Action quitting { add { } remove { } }
        public static event Action<string> deepLinkActivated { add { } remove { } }
    }

    /// <summary>
    /// IMGUI's event types, as UnityEngine declares them: a name the SDK's own EventType shares,
    /// so that an app's file with `using UnityEngine;` and `using Service.Unity;` meets the
    /// clash here as in Unity (CS0104).
    /// </summary>
    public enum EventType
    {
        MouseDown = 0,
        MouseUp = 1,
        MouseMove = 2,
        MouseDrag = 3,
        KeyDown = 4,
        KeyUp = 5,
        ScrollWheel = 6,
        Repaint = 7,
        Layout = 8,
        DragUpdated = 9,
        DragPerform = 10,
        Ignore = 11,
        Used = 12,
    }

    public static class SystemInfo
    {
        public static string operatingSystem { get { throw new NotSupportedException(); } }
        public static string deviceModel { get { throw new NotSupportedException(); } }
        public static string deviceUniqueIdentifier { get { throw new NotSupportedException(); } }
    }

    public static class PlayerPrefs
    {
        public static bool HasKey(string key) { throw new NotSupportedException(); }
        public static string GetString(string key) { throw new NotSupportedException(); }
        public static void SetString(string key, string value) { }
        public static void DeleteKey(string key) { }
        public static void Save() { }
    }

    public static class Debug
    {
        public static void Log(object message) { }
        public static void LogWarning(object message) { }
        public static void LogError(object message) { }
    }
}

namespace UnityEngine
{
    public class AndroidJavaObject : IDisposable
    {
        public AndroidJavaObject(string className, params object[] args) { }
        public void Call(string methodName, params object[] args) { }
        public T Call<T>(string methodName, params object[] args) { throw new NotSupportedException(); }
        public T Get<T>(string fieldName) { throw new NotSupportedException(); }
        public T GetStatic<T>(string fieldName) { throw new NotSupportedException(); }
        public T CallStatic<T>(string methodName, params object[] args) { throw new NotSupportedException(); }
        public void Dispose() { }
    }

    public class AndroidJavaClass : AndroidJavaObject
    {
        public AndroidJavaClass(string className) : base(className) { }
    }

    public class AndroidJavaProxy
    {
        public AndroidJavaProxy(string javaInterface) { }
    }

    public static class AndroidJNI
    {
        public static int AttachCurrentThread() { return 0; }
    }
}

namespace UnityEngine
{
    public static class Time
    {
        public static float realtimeSinceStartup { get { throw new NotSupportedException(); } }
    }

    public class AsyncOperation
    {
        public event Action<AsyncOperation> completed { add { } remove { } }
    }
}

namespace UnityEngine.Networking
{
    public class DownloadHandler : IDisposable
    {
        public string text { get { throw new NotSupportedException(); } }
        public void Dispose() { }
    }

    public sealed class DownloadHandlerBuffer : DownloadHandler { }

    public class UploadHandler : IDisposable
    {
        public void Dispose() { }
    }

    public sealed class UploadHandlerRaw : UploadHandler
    {
        public UploadHandlerRaw(byte[] data) { }
    }

    public sealed class UnityWebRequestAsyncOperation : AsyncOperation { }

    public sealed class UnityWebRequest : IDisposable
    {
        public enum Result
        {
            InProgress,
            Success,
            ConnectionError,
            ProtocolError,
            DataProcessingError,
        }

        public UnityWebRequest(string url, string method) { }
        public DownloadHandler downloadHandler { get; set; }
        public UploadHandler uploadHandler { get; set; }
        public int timeout { get; set; }
        public long responseCode { get { throw new NotSupportedException(); } }
        public string error { get { throw new NotSupportedException(); } }
        public Result result { get { throw new NotSupportedException(); } }
        public void SetRequestHeader(string name, string value) { }
        public string GetResponseHeader(string name) { throw new NotSupportedException(); }
        public UnityWebRequestAsyncOperation SendWebRequest() { throw new NotSupportedException(); }
        public void Dispose() { }
    }
}

namespace UnityEngine.Scripting
{
    /// <summary>Keeps what it marks through managed code stripping: a type, or a member Unity reaches only by name.</summary>
    [AttributeUsage(
        AttributeTargets.Assembly | AttributeTargets.Class | AttributeTargets.Struct | AttributeTargets.Enum
        | AttributeTargets.Constructor | AttributeTargets.Method | AttributeTargets.Property | AttributeTargets.Field
        | AttributeTargets.Event | AttributeTargets.Interface | AttributeTargets.Delegate, Inherited = false)]
    public class PreserveAttribute : Attribute
    {
    }
}

namespace AOT
{
    /// <summary>A static method native code calls back: IL2CPP builds its reverse P/Invoke wrapper.</summary>
    [AttributeUsage(AttributeTargets.Method)]
    public sealed class MonoPInvokeCallbackAttribute : Attribute
    {
        public MonoPInvokeCallbackAttribute(Type type) { }
    }
}
