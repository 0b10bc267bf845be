#if UNITY_IOS
using UnityEditor;
using UnityEditor.Build;
using UnityEditor.Build.Reporting;
using UnityEditor.iOS.Xcode;

namespace Service.Unity.Editor
{
    /// <summary>
    /// Links the iOS plugin's newer system frameworks weakly into the generated Xcode project:
    /// AppTrackingTransparency (iOS 14) and AdServices (iOS 14.3) are missing on the older iOS
    /// versions Unity builds for, where a required link would stop the app at launch. The
    /// plugin importer's framework list (ServiceSdkDevice.m.meta) has no weak link, so it
    /// names only AdSupport, which every supported iOS has.
    /// </summary>
    public sealed class ServiceSdkXcodeFrameworks : IPostprocessBuildWithReport
    {
        public static readonly string[] WeakFrameworks = { "AppTrackingTransparency.framework", "AdServices.framework" };

        public int callbackOrder
        {
            get { return 0; }
        }

        public void OnPostprocessBuild(BuildReport report)
        {
            if (report.summary.platform != BuildTarget.iOS) return;
            var path = PBXProject.GetPBXProjectPath(report.summary.outputPath);
            var project = new PBXProject();
            project.ReadFromFile(path);
            // The plugin's code is built into the UnityFramework target.
            var target = project.GetUnityFrameworkTargetGuid();
            foreach (var framework in WeakFrameworks) project.AddFrameworkToProject(target, framework, true);
            project.WriteToFile(path);
        }
    }
}
#endif
