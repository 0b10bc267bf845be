using System.Runtime.CompilerServices;

// In Unity, Runtime/ is one assembly. Built apart (as the tests build it, to prove the core
// needs no UnityEngine), the Unity layer and the tests see the core's internals.
[assembly: InternalsVisibleTo("Service.Unity.Layer")]
[assembly: InternalsVisibleTo("Service.Unity.Tests")]
