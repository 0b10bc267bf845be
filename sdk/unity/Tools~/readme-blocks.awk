# `awk -f readme-blocks.awk README.md`: the README's ```csharp blocks as one app script, as
# they stand, for test.sh to compile against the package: the `using` lines that open a block
# (with the comments among them) at the top of the file, each block's other lines the body of
# an async method of a MonoBehaviour (a block may await), one method a block. So a call, type,
# argument or namespace a block shows that the package does not have fails the run, with no
# copy of the block to keep in step. What the README leaves to the app is declared beside
# them: `Router`, its navigation. Prints the number of blocks to stderr.
function flush(   i) {
  body = body "        private async void Block" start "()\n        {\n"
  for (i = 1; i <= n; i++) body = body "            " lines[i] "\n"
  body = body "        }\n\n"
}
/^```csharp$/ { inside = 1; start = NR; n = 0; head = 1; pending = ""; next }
/^```/ && inside { flush(); inside = 0; blocks++; next }
inside && head && /^using [A-Za-z_.= ]+;/ { usings = usings pending $0 "\n"; pending = ""; next }
inside && head && /^\/\// { pending = pending $0 "\n"; next }
inside { head = 0; if (pending != "") { n_p = split(pending, p, "\n"); for (j = 1; j < n_p; j++) lines[++n] = p[j]; pending = "" } lines[++n] = $0 }
END {
  print usings
  print "namespace ReadmeBlocks\n{"
  print "    /// <summary>The app's own navigation, which the README's snippets call.</summary>"
  print "    internal static class Router\n    {"
  print "        public static void Open(string path) { }"
  print "        public static void Open(string path, System.Collections.Generic.IReadOnlyDictionary<string, string> parameters) { }"
  print "    }\n"
  print "    public sealed class Snippets : MonoBehaviour\n    {"
  printf "%s", body
  print "    }\n}"
  print blocks + 0 > "/dev/stderr"
}
