using System.IO;
using UnityEditor.Build;
using UnityEditor.Build.Reporting;
using UnityEditor.UnityLinker;

namespace Service.Unity.Editor
{
    /// <summary>
    /// Gives Unity's linker the package's Runtime/link.xml at each player build. The linker reads
    /// link.xml files under the project's Assets folder only, never one in a package (which a git
    /// URL installs, in the package cache): a build callback that names the file is Unity's way
    /// for a package to add one. The file keeps what the SDK reaches only by reflection (the
    /// queued items Newtonsoft reads back, the behaviour's messages); the [Preserve] attributes
    /// on them say the same, for a build without this step.
    /// </summary>
    public sealed class ServiceSdkLinkXml : IUnityLinkerProcessor
    {
        /// <summary>The file, by the package's name (package.json), as the Editor resolves a package's paths.</summary>
        public const string LinkXml = "Packages/com.service.attribution/Runtime/link.xml";

        public int callbackOrder
        {
            get { return 0; }
        }

        public string GenerateAdditionalLinkXmlFile(BuildReport report, UnityLinkerBuildPipelineData data)
        {
            var path = Path.GetFullPath(LinkXml);
            return File.Exists(path) ? path : null;
        }
    }
}
