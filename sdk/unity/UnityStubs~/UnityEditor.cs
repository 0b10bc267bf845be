// Compile-only declarations of the few UnityEditor members the Editor code uses (the Xcode
// project's frameworks after an iOS build, the linker's extra link.xml), so that it compiles on a
// machine without Unity.
// Never shipped: the Editor brings the real ones.
using System;

namespace UnityEditor
{
    public enum BuildTarget
    {
        StandaloneWindows64 = 19,
        iOS = 9,
        Android = 13,
        WebGL = 20,
    }
}

namespace UnityEditor.Build
{
    public interface IOrderedCallback
    {
        int callbackOrder { get; }
    }

    public interface IPostprocessBuildWithReport : IOrderedCallback
    {
        void OnPostprocessBuild(Reporting.BuildReport report);
    }

    /// <summary>As Unity 2021.3 and later declare it (earlier ones add OnBeforeRun and OnAfterRun).</summary>
    public interface IUnityLinkerProcessor : IOrderedCallback
    {
        string GenerateAdditionalLinkXmlFile(Reporting.BuildReport report, UnityLinker.UnityLinkerBuildPipelineData data);
    }
}

namespace UnityEditor.UnityLinker
{
    public sealed class UnityLinkerBuildPipelineData
    {
        public BuildTarget target { get { throw new NotSupportedException(); } }
        public string inputDirectory { get { throw new NotSupportedException(); } }
    }
}

namespace UnityEditor.Build.Reporting
{
    public struct BuildSummary
    {
        public BuildTarget platform { get { throw new NotSupportedException(); } }
        public string outputPath { get { throw new NotSupportedException(); } }
    }

    public sealed class BuildReport
    {
        public BuildSummary summary { get { throw new NotSupportedException(); } }
    }
}

namespace UnityEditor.iOS.Xcode
{
    public class PBXProject
    {
        public static string GetPBXProjectPath(string buildPath) { throw new NotSupportedException(); }
        public void ReadFromFile(string path) { throw new NotSupportedException(); }
        public string GetUnityFrameworkTargetGuid() { throw new NotSupportedException(); }
        public string GetUnityMainTargetGuid() { throw new NotSupportedException(); }
        public void AddFrameworkToProject(string targetGuid, string framework, bool weak) { throw new NotSupportedException(); }
        public string GetBuildPropertyForAnyConfig(string targetGuid, string name) { throw new NotSupportedException(); }
        public void SetBuildProperty(string targetGuid, string name, string value) { throw new NotSupportedException(); }
        public void WriteToFile(string path) { throw new NotSupportedException(); }
    }
}
