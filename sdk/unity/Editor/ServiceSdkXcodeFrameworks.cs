#if UNITY_IOS
using UnityEditor;
using UnityEditor.Build;
using UnityEditor.Build.Reporting;
using UnityEditor.iOS.Xcode;

namespace Service.Unity.Editor
{
    /// <summary>
    /// Links the Objective-C plugin's newer system frameworks weakly into the generated Xcode
    /// project: AppTrackingTransparency (iOS 14) and AdServices (iOS 14.3) are missing on the
    /// older iOS versions Unity builds for, where a required link would stop the app at launch.
    /// The plugin importers' framework lists (the .meta files) have no weak link, so they name
    /// only what every supported iOS has: AdSupport, StoreKit. AdAttributionKit (iOS 17.4) is
    /// not named here: the SDKs of Xcode before 15.3 do not have it, and naming it would fail
    /// their link (`ld: framework not found AdAttributionKit`); the Swift plugin imports it only
    /// where the SDK has it (`#if canImport`), with `@_weakLinked import`, so the compiler links
    /// it there, weakly. The Swift plugin (ServiceSdkConversionValues.swift) is built into
    /// UnityFramework too: a target that names no Swift version gets Swift 5's, and the app
    /// target embeds Swift's runtime libraries for the iOS versions that lack them.
    /// </summary>
    public sealed class ServiceSdkXcodeFrameworks : IPostprocessBuildWithReport
    {
        public static readonly string[] WeakFrameworks =
        {
            "AppTrackingTransparency.framework", "AdServices.framework",
        };

        /// <summary>Xcode's build setting that copies Swift's runtime libraries into the app.</summary>
        public const string EmbedSwiftLibraries = "ALWAYS_EMBED_SWIFT_STANDARD_LIBRARIES";

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
            if (string.IsNullOrEmpty(project.GetBuildPropertyForAnyConfig(target, "SWIFT_VERSION")))
            {
                project.SetBuildProperty(target, "SWIFT_VERSION", "5.0");
            }
            // The Swift plugin needs Swift's runtime libraries, which older iOS versions lack:
            // libswiftCore before 12.2, and libswift_Concurrency (its Task and async calls) before
            // 15, where the app must carry the copies Xcode ships. Xcode copies them only into a
            // target that compiles Swift itself or asks for them, and the app target
            // (Unity-iPhone) has no Swift: without this the app stops at launch on iOS 13 and 14
            // (`Library not loaded: @rpath/libswift_Concurrency.dylib`). The framework must not
            // carry them itself: App Store Connect refuses a framework with a Frameworks folder
            // of its own (ITMS-90206).
            project.SetBuildProperty(project.GetUnityMainTargetGuid(), EmbedSwiftLibraries, "YES");
            project.SetBuildProperty(target, EmbedSwiftLibraries, "NO");
            project.WriteToFile(path);
        }
    }
}
#endif
